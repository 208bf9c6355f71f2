// The event → first attempt phases of the webhook benchmark: BENCH_LATENCY_ROUNDS phases at a fixed
// rate (platform-phases.ts latencyPhase), each after a VACUUM and a quiet-machine check; the
// figures are of every delivery of every phase together (a stall in one phase is in the p99),
// and per phase.
import { concatSorted, percentile } from '../support/http-load.ts';
import { meanGeneratorInfraMachineCpu, quiet } from '../support/machine-cpu.ts';
import { type Bench, vacuum } from './endpoints.ts';
import { type LatencyPhase, latencyPhase } from './platform-phases.ts';
import type { Cpu, LatencyResult } from './report.ts';

export interface LatencySettings {
  latencyRounds: number;
  latencyRate: number;
  latencySeconds: number;
  latencyEndpoints: number;
}

/**
 * BENCH_LATENCY_ROUNDS latency phases, each after a VACUUM and a quiet-machine check; the figures
 * are of every delivery of every phase together (a stall in one phase is in the p99), and per phase.
 */
export async function latencyRounds(b: Bench, settings: LatencySettings): Promise<LatencyResult> {
  const phases: LatencyPhase[] = [];
  const perPhase: LatencyResult['phases'] = [];
  for (let k = 1; k <= settings.latencyRounds; k++) {
    await vacuum(b.db);
    await quiet();
    const label = `latency ${k}/${settings.latencyRounds}`;
    const phase = await latencyPhase(
      b,
      label,
      `l${k}`,
      settings.latencyRate,
      settings.latencySeconds,
      settings.latencyEndpoints,
    );
    const sorted = Float64Array.from(phase.firstAttemptMs).sort();
    const entry = {
      label,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted[sorted.length - 1] ?? Number.NaN,
      achievedRate: phase.achievedRate,
      deliveredRate: phase.deliveredRate,
      machineBusy: phase.cpu.machineBusy,
      actors: phase.cpu.actors,
      other: phase.cpu.other,
    };
    perPhase.push(entry);
    phases.push(phase);
    b.log(
      `${label}: event → first attempt p50 ${entry.p50Ms.toFixed(2)} ms, p99 ${entry.p99Ms.toFixed(2)} ms, max ${entry.maxMs.toFixed(2)} ms; delivered at ${entry.deliveredRate.toFixed(1)}/s; actors ${entry.actors.toFixed(0)} µs/delivery, other ${entry.other.toFixed(0)}; machine ${(100 * entry.machineBusy).toFixed(0)}% busy`,
    );
  }
  const sorted = concatSorted(phases.map((p) => p.firstAttemptMs));
  const acks = concatSorted(phases.map((p) => p.publishAckMs));
  const recorded = concatSorted(phases.map((p) => p.recordedMs));
  const attempted = concatSorted(phases.map((p) => p.attemptedMs));
  const mean = (f: (c: Cpu) => number) => phases.reduce((sum, p) => sum + f(p.cpu), 0) / phases.length;
  return {
    rate: settings.latencyRate,
    seconds: settings.latencySeconds,
    rounds: settings.latencyRounds,
    endpoints: settings.latencyEndpoints,
    deliveries: sorted.length,
    achievedRate: Math.min(...phases.map((p) => p.achievedRate)),
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    p999Ms: percentile(sorted, 99.9),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    publishAckP50Ms: percentile(acks, 50),
    publishAckP99Ms: percentile(acks, 99),
    recordedP50Ms: percentile(recorded, 50),
    recordedP99Ms: percentile(recorded, 99),
    attemptedP50Ms: percentile(attempted, 50),
    attemptedP99Ms: percentile(attempted, 99),
    cpu: {
      actors: mean((c) => c.actors),
      receiver: mean((c) => c.receiver),
      ...meanGeneratorInfraMachineCpu(phases.map((p) => p.cpu)),
      other: mean((c) => c.other),
      statements: mean((c) => c.statements),
      webhookStatements: mean((c) => c.webhookStatements),
      handshakes: phases.reduce((sum, p) => sum + p.cpu.handshakes, 0),
      logBytes: mean((c) => c.logBytes ?? Number.NaN),
    },
    phases: perPhase,
    sorted: Array.from(sorted),
  };
}
