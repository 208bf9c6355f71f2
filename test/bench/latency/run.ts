// `npm run bench:latency`: publish → WebSocket subscriber latency on this machine, Lattice beside
// the same parts wired by hand, every arm in the same run, written to docs/benchmarks.md (its own
// section) with docs/benchmarks-latency.svg.
//   lattice-apart  every role its own `lattice start ROLE` process (lattice-arms.ts)
//   lattice-one    `lattice start`, every role in one process
//   bare-pipeline  http → Kafka → consumer (PostgreSQL, Redis) → ws, by hand (bare-arm.ts)
// At fixed publish rates, the same load clients for every arm (clients.ts): an open-loop
// publisher and subscriber processes that time and check every delivery. Rounds interleave the
// arms (order reversed every other round); figures are medians over rounds (summary.ts).
// Settings (environment, read here only):
//   BENCH_RATES (100,1000,3000 messages/s)  BENCH_ROUNDS (3)  BENCH_DURATION_S (10, after a
//   BENCH_RAMP_S of 2)  BENCH_CHANNELS (100)  BENCH_SUBSCRIBERS (1000, spread evenly over the
//   channels)  BENCH_ARMS (lattice-apart,lattice-one,bare-pipeline)  BENCH_CLIENT_WORKERS (1
//   subscriber process)  BENCH_SOCKETS (256, the publisher's most)  BENCH_WARMUP_S (3 per arm,
//   0: none)  BENCH_WAIT_QUIET (1: each phase waits, 60 s at most, for a quiet machine)
//   BENCH_DRAIN_TIMEOUT_S (30)  BENCH_BARE_CONCURRENCY (4 partitions at once in the bare
//   consumer, as Lattice's actor host)  BENCH_WRITE (1: update docs/benchmarks.md)
//   BENCH_RESULT_FILE (the figures as JSON; default bench-latency-result.json in the temp folder)
//   BENCH_REPORT_FROM (a result file: write the report from it again, running nothing)
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretKeysOf } from '@lattice/cli';
import { createLogger, loadConfig, newId, parseSecretKeys } from '@lattice/core';
import { databaseUrlFor, ensureDatabase } from '@lattice/infra';
import { createDb, migrateLatest } from '@lattice/store';
import { dropForeignSeals } from '../../support/foreign-seals.ts';
import { benchEnvReaders } from '../support/bench-env.ts';
import { quiet } from '../support/machine-cpu.ts';
import { benchLogLevel, PRODUCTION_LOG_LEVEL } from '../support/platform-log.ts';
import { ARM_NAMES, type Arm, type ArmContext, type ArmName } from './arm.ts';
import { startBareArm } from './bare-arm.ts';
import { startPublisher, startSubscribers } from './clients.ts';
import { startLatticeArm } from './lattice-arms.ts';
import { type PhaseResult, type PhaseSettings, runPhase } from './phase.ts';
import { type LatencyReport, writeReport } from './report.ts';

const env = process.env;
const { num, list } = benchEnvReaders(env);
const channels = num('BENCH_CHANNELS', 100);
const settings = {
  rates: list('BENCH_RATES', '100,1000,3000').map(Number),
  rounds: num('BENCH_ROUNDS', 3),
  rampS: num('BENCH_RAMP_S', 2),
  durationS: num('BENCH_DURATION_S', 10),
  channels,
  subscribersPerChannel: Math.max(1, Math.round(num('BENCH_SUBSCRIBERS', 1000) / channels)),
  arms: list('BENCH_ARMS', ARM_NAMES.join(',')) as ArmName[],
  clientWorkers: num('BENCH_CLIENT_WORKERS', 1),
  sockets: num('BENCH_SOCKETS', 256),
  warmupS: num('BENCH_WARMUP_S', 3),
  waitQuiet: env.BENCH_WAIT_QUIET !== '0',
  drainTimeoutMs: num('BENCH_DRAIN_TIMEOUT_S', 30) * 1000,
  barePartitionsConcurrency: num('BENCH_BARE_CONCURRENCY', 4),
  cpuProfileDir: env.BENCH_CPU_PROF_DIR ?? null,
  logLevel: benchLogLevel(env),
  publishDoor: (env.BENCH_PUBLISH_DOOR === 'edge' ? 'edge' : 'management') as 'edge' | 'management',
  write: env.BENCH_WRITE !== '0',
  resultFile: env.BENCH_RESULT_FILE ?? join(tmpdir(), 'bench-latency-result.json'),
};
for (const arm of settings.arms)
  if (!(ARM_NAMES as readonly string[]).includes(arm)) throw new Error(`BENCH_ARMS: unknown arm ${arm}`);

const log = (line: string) => process.stderr.write(`bench:latency ${line}\n`);
const config = loadConfig(env);
const logger = createLogger({ name: 'bench-latency', level: 'error' });
/** Set by Ctrl-C (SIGINT) or SIGTERM: the run ends where it is, every arm stopped and cleaned up. */
let interrupted = false;
const runId = newId()
  .replace(/[^0-9a-z]/gi, '')
  .slice(-8)
  .toLowerCase();

const phaseSettings = (durationS: number, rampS: number): PhaseSettings => ({
  channels: settings.channels,
  subscribersPerChannel: settings.subscribersPerChannel,
  rampS,
  durationS,
  sockets: settings.sockets,
  drainTimeoutMs: settings.drainTimeoutMs,
});

const phaseLine = (p: PhaseResult) =>
  `p50 ${p.p50Ms.toFixed(2)} p99 ${p.p99Ms.toFixed(2)} max ${p.maxMs.toFixed(1)} ms, ${p.answeredPerS.toFixed(0)} answered/s, ${p.deliveriesPerS.toFixed(0)} deliveries/s, lost ${p.lost} dup ${p.duplicated} ooo ${p.outOfOrder}, server ${p.serverUsPerMessage.toFixed(0)} µs/msg${
    p.stages
      ? `; stages p50/p99 ms: ${Object.entries(p.stages)
          .map(([n, s]) => `${n} ${s.p50Ms.toFixed(1)}/${s.p99Ms.toFixed(1)}`)
          .join(', ')}`
      : ''
  }`;

async function main(): Promise<void> {
  if (env.BENCH_REPORT_FROM) {
    const report = JSON.parse(readFileSync(env.BENCH_REPORT_FROM, 'utf8')) as LatencyReport;
    for (const line of writeReport(report, settings.write)) log(line);
    return;
  }
  log(`run ${runId}, settings ${JSON.stringify(settings)}`);
  const loadBefore = loadavg()[0] ?? 0;
  const databaseUrl = databaseUrlFor(config.databaseUrl, 'lattice_bench');
  await ensureDatabase(databaseUrl, { logger });
  const db = createDb({ databaseUrl, logger });
  await migrateLatest(db, logger);
  const secretKeys = secretKeysOf({ ...config, databaseUrl });
  // The roles check at start that this keyring opens what the database holds.
  await dropForeignSeals(db, parseSecretKeys(secretKeys), logger);
  await db.destroy();
  const ctx: ArmContext = {
    runId,
    config,
    databaseUrl,
    secretKeys,
    partitions: config.kafkaPartitions,
    barePartitionsConcurrency: settings.barePartitionsConcurrency,
    publishDoor: settings.publishDoor,
    cpuProfileDir: settings.cpuProfileDir,
    logLevel: settings.logLevel,
    log,
  };

  const publisher = await startPublisher();
  const subscribers = await startSubscribers(settings.clientWorkers, 50);
  const clients = { publisher, subscribers };
  const arms: Arm[] = [];
  let stopped: Promise<void> | null = null;
  const stopAll = () => {
    stopped ??= (async () => {
      for (const arm of arms) {
        log(`${arm.name}: stopping…`);
        await arm.stop().catch((err: unknown) => log(`${arm.name}: stop failed: ${String(err)}`));
      }
      await publisher.stop();
      await subscribers.stop();
    })();
    return stopped;
  };
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    log('interrupted: stopping every arm…');
    void stopAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  /** Ends the run where it is once interrupted (the signal handler stops the arms and exits). */
  const checkInterrupted = () => {
    if (interrupted) throw new Error('interrupted');
  };

  const skipped: LatencyReport['skipped'] = [];
  const failures: LatencyReport['failures'] = [];
  const phases: PhaseResult[] = [];
  try {
    for (const name of settings.arms) {
      checkInterrupted();
      log(`${name}: starting…`);
      try {
        const arm = name === 'bare-pipeline' ? await startBareArm(ctx) : await startLatticeArm(ctx, name);
        arms.push(arm);
        log(`${name}: up (${arm.processes.map((p) => `${p.name} pid ${p.pid}`).join(', ')})`);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        log(`${name}: SKIPPED, it did not start: ${reason}`);
        skipped.push({ arm: name, reason });
      }
    }
    if (arms.length === 0) throw new Error('no arm started');

    if (settings.warmupS > 0) {
      const rate = Math.min(1000, Math.max(...settings.rates));
      for (const arm of arms) {
        checkInterrupted();
        const label = `${arm.name} warm-up ${rate}/s`;
        try {
          const p = await runPhase(
            arm,
            clients,
            phaseSettings(settings.warmupS, 0),
            { runId, round: 0, ratePerS: rate, label },
            log,
          );
          log(`${label}: ${phaseLine(p)}`);
        } catch (err) {
          log(`${label}: FAILED: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }

    for (let round = 1; round <= settings.rounds; round++) {
      // Reversed every other round, so drift on the machine hits every arm alike.
      const order = round % 2 === 1 ? arms : [...arms].reverse();
      for (const rate of settings.rates) {
        for (const arm of order) {
          checkInterrupted();
          const label = `${arm.name} ${rate}/s round ${round}/${settings.rounds}`;
          if (settings.waitQuiet) {
            const waitedMs = await quiet();
            if (waitedMs > 1000)
              log(`${label}: waited ${(waitedMs / 1000).toFixed(1)} s for a quiet machine`);
          }
          try {
            const p = await runPhase(
              arm,
              clients,
              phaseSettings(settings.durationS, settings.rampS),
              { runId, round, ratePerS: rate, label },
              log,
            );
            phases.push(p);
            log(`${label}: ${phaseLine(p)}`);
          } catch (err) {
            const reason = err instanceof Error ? err.message : String(err);
            log(`${label}: FAILED: ${reason}`);
            failures.push({ arm: arm.name, ratePerS: rate, round, reason });
          }
        }
      }
    }

    const report: LatencyReport = {
      date: new Date().toISOString(),
      node: process.version,
      cpu: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown'}`,
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
      settings: {
        rates: settings.rates,
        rounds: settings.rounds,
        rampS: settings.rampS,
        durationS: settings.durationS,
        channels: settings.channels,
        subscribersPerChannel: settings.subscribersPerChannel,
        clientWorkers: settings.clientWorkers,
        sockets: settings.sockets,
        partitions: ctx.partitions,
        barePartitionsConcurrency: settings.barePartitionsConcurrency,
        warmupS: settings.warmupS,
        waitQuiet: settings.waitQuiet,
        publishDoor: settings.publishDoor,
        logLevel: settings.logLevel,
        productionLogLevel: PRODUCTION_LOG_LEVEL,
      },
      arms: arms.map((a) => a.name),
      processes: Object.fromEntries(arms.map((a) => [a.name, a.processes.map((p) => p.name)])),
      skipped,
      failures,
      phases,
    };
    writeFileSync(settings.resultFile, JSON.stringify(report));
    log(`figures in ${settings.resultFile}`);
    for (const line of writeReport(report, settings.write)) log(line);
  } finally {
    await stopAll();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (interrupted) return; // the signal handler exits once every arm is stopped
    console.error(err);
    process.exit(1);
  },
);
