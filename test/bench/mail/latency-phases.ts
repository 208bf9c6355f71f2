// The accept-latency phases of the mail benchmark: a fixed rate of sends through the management
// API, each timed from just before the request to the end of its answer, while the actors hand
// the emails over; several phases, each after a VACUUM and a quiet-machine check.
import { performance } from 'node:perf_hooks';
import { sleep } from '@lattice/core';
import { waitUntil } from '../../support/wait-until.ts';
import { concatSorted, percentile, poster } from '../support/http-load.ts';
import { meanGeneratorInfraMachineCpu, quiet } from '../support/machine-cpu.ts';
import { cpuNow, cpuSince } from './processes.ts';
import type { Cpu, LatencyResult } from './report.ts';
import { type Bench, sendBody, settle, vacuum } from './rounds.ts';

export interface LatencySettings {
  latencyRate: number;
  latencySeconds: number;
  latencyRounds: number;
}

interface PhaseData {
  accept: Float64Array;
  handover: Float64Array;
  statuses: Map<number, number>;
  achievedRate: number;
  cpu: Cpu;
}

/** BENCH_LATENCY_RATE sends a second for BENCH_LATENCY_SECONDS, each request timed. */
async function latencyPhase(b: Bench, label: string, rate: number, seconds: number): Promise<PhaseData> {
  const { servers, target, db } = b;
  const count = rate * seconds;
  const intervalMs = 1000 / rate;
  const http = poster(
    `${servers.management.url}/mail/emails`,
    { authorization: `Bearer ${target.ownerToken}`, 'content-type': 'application/json' },
    64,
  );
  const accept = new Float64Array(count);
  const sentAt = new Float64Array(count);
  const messageIds: Array<string | undefined> = new Array(count);
  const statuses = new Map<number, number>();
  let done = 0;
  const cpuBefore = await cpuNow(servers);
  const current = b.arrivals.begin();
  const start = performance.now();
  const ticker = setInterval(() => {
    const sorted = Float64Array.from(accept.subarray(0, done)).sort();
    b.log(
      `  ${label} ${String(Math.round((performance.now() - start) / 1000)).padStart(3)}/${seconds} s  ${String(done).padStart(5)}/${count} answered  p99 so far ${percentile(sorted, 99).toFixed(2)} ms  ${current.total} received`,
    );
  }, 1000);
  const inFlight: Promise<void>[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const wait = start + i * intervalMs - performance.now();
      if (wait >= 1) await sleep(wait);
      inFlight.push(
        (async () => {
          const body = sendBody(target, 1_000_000 + i);
          const t0 = performance.now();
          sentAt[i] = performance.timeOrigin + t0;
          const res = await http.post(body);
          accept[i] = performance.now() - t0;
          done++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 202)
            messageIds[i] = `<${(JSON.parse(res.text) as { id: string }).id}@${target.domain}>`;
        })(),
      );
    }
    const sentForMs = performance.now() - start;
    await Promise.all(inFlight);
    const accepted = messageIds.filter((m): m is string => m !== undefined);
    await waitUntil(
      `latency: ${current.total} of ${accepted.length} received`,
      () => current.total >= accepted.length,
      120_000,
      5,
    );
    clearInterval(ticker);
    const cpu = await cpuSince(servers, cpuBefore, count);
    await settle(db, label, accepted);
    await sleep(200);
    current.check(label, accepted);
    return {
      accept,
      handover: Float64Array.from(
        messageIds.flatMap((m, i) => (m ? [current.byId.get(m)!.atMs - sentAt[i]!] : [])),
      ),
      statuses,
      achievedRate: count / (sentForMs / 1000),
      cpu,
    };
  } finally {
    clearInterval(ticker);
    b.arrivals.end();
    http.close();
  }
}

/**
 * BENCH_LATENCY_ROUNDS phases of latencyPhase, each after a quiet-machine check; the figures are
 * of every send of every phase together (a stall in one phase is in the p99, as it would be for
 * a client), and per phase.
 */
export async function latencyRounds(b: Bench, s: LatencySettings): Promise<LatencyResult> {
  const phases: PhaseData[] = [];
  const perPhase: LatencyResult['phases'] = [];
  for (let k = 1; k <= s.latencyRounds; k++) {
    await vacuum(b.db);
    await sleep(1000);
    await quiet();
    const label = `latency ${k}/${s.latencyRounds}`;
    const phase = await latencyPhase(b, label, s.latencyRate, s.latencySeconds);
    const sorted = Float64Array.from(phase.accept).sort();
    const entry = {
      label,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted[sorted.length - 1]!,
      non202: phase.accept.length - (phase.statuses.get(202) ?? 0),
      machineBusy: phase.cpu.machineBusy,
      other: phase.cpu.other,
      kafka: phase.cpu.kafka,
    };
    perPhase.push(entry);
    phases.push(phase);
    b.log(
      `${label}: p50 ${entry.p50Ms.toFixed(2)} ms, p99 ${entry.p99Ms.toFixed(2)} ms, max ${entry.maxMs.toFixed(2)} ms, ${entry.non202} not 202; machine ${(100 * entry.machineBusy).toFixed(0)}% busy`,
    );
  }
  const sorted = concatSorted(phases.map((p) => p.accept));
  const handover = concatSorted(phases.map((p) => p.handover));
  const statuses: Record<string, number> = {};
  for (const p of phases)
    for (const [status, n] of p.statuses) statuses[status] = (statuses[status] ?? 0) + n;
  const mean = (f: (c: Cpu) => number) => phases.reduce((sum, p) => sum + f(p.cpu), 0) / phases.length;
  return {
    rate: s.latencyRate,
    seconds: s.latencySeconds,
    rounds: s.latencyRounds,
    sends: sorted.length,
    achievedRate: Math.min(...phases.map((p) => p.achievedRate)),
    non202: sorted.length - (statuses['202'] ?? 0),
    statuses,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    p999Ms: percentile(sorted, 99.9),
    maxMs: sorted[sorted.length - 1]!,
    handoverP50Ms: percentile(handover, 50),
    handoverP99Ms: percentile(handover, 99),
    cpu: {
      management: mean((c) => c.management),
      actors: mean((c) => c.actors),
      smartHost: mean((c) => c.smartHost),
      ...meanGeneratorInfraMachineCpu(phases.map((p) => p.cpu)),
      other: mean((c) => c.other),
      statements: {
        management: mean((c) => c.statements.management),
        actors: mean((c) => c.statements.actors),
      },
      logBytes: {
        management: mean((c) => c.logBytes?.management ?? Number.NaN),
        actors: mean((c) => c.logBytes?.actors ?? Number.NaN),
      },
    },
    phases: perPhase,
    sorted: Array.from(sorted),
  };
}
