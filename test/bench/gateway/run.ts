// `npm run bench:gateway`: realtime fan-out over WebSocket, the Lattice gateway beside a bare `ws`
// server and Socket.IO with its Redis adapter, in one run on this machine, written to
// docs/benchmarks.md (its own section) with docs/benchmarks-gateway.svg.
//   fan-out       Redis-fed shapes (a) 1 channel × 2 000 subscribers, (b) 100 channels × 20
//                 subscribers: per server and shape a saturation phase (deliveries/s) and a
//                 fixed-rate phase (server CPU µs per delivery), fan-out.ts. Goals: lattice ≥ 0.7
//                 × bare-ws and ≥ 1.5 × socketio; where the figures meet the load clients' cap
//                 (2 cores), the CPU per delivery is compared too.
//   publish path  shapes fed as production feeds them (pa) 1 channel × 2 000 subscribers at 20
//                 publishes/s, (pb) 100 channels × 20 subscribers at 2 000 publishes/s: lattice
//                 through HTTP publish → Kafka → channel actor → Redis, bare-ws from Redis at the
//                 same rate (publish-path.ts). Goal: lattice ≥ 0.7 × bare-ws deliveries/s.
//   latency       HTTP publish → push at 1 000 msg/s (lattice only, needs the full platform).
//   memory        per idle authenticated connection with one subscription, 10 000 of them, by
//                 RSS delta and by live heap, reconciled (report-memory.ts).
// Each server is its own child process, started from its variant file; a variant whose start
// fails is skipped with the reason. The Lattice processes run as `lattice start` runs them, at the
// production log level (support/platform-log.ts). Rounds alternate the servers (reversed every
// other round); figures are medians over rounds. Settings (environment, read here only):
//   BENCH_ROUNDS (3)  BENCH_DURATION_S (5 per phase, after a 1 s ramp)  BENCH_WRITE (1: update docs)
//   BENCH_VARIANTS (bare-ws,socketio,lattice)  BENCH_FIXED_RATE (20000 deliveries/s)
//   BENCH_CLIENT_WORKERS (2)  BENCH_WINDOW (100000 deliveries outstanding at saturation)
//   BENCH_SHAPES (a,b,pa,pb)  BENCH_SCALE (1: scales every shape's subscribers per channel and
//   publish rate, for quick runs only)  BENCH_LATENCY_S (10)  BENCH_MEMORY_CONNECTIONS (10000)
//   BENCH_MEMORY_VARIANTS (lattice,bare-ws,socketio; each on a fresh server process of its own)
//   BENCH_LATENCY_VARIANTS (lattice; bare-ws gives a floor: HTTP → Redis fan-out → ws)
//   BENCH_LOG_LEVEL (the Lattice processes', default the production one)
import { cpus, loadavg } from 'node:os';
import { loadConfig, newId } from '@lattice/core';
import { databaseUrlFor } from '@lattice/infra';
import { benchEnvReaders } from '../support/bench-env.ts';
import { benchLogLevel, createLogFiles } from '../support/platform-log.ts';
import { FanOutRun, type PhaseResult, type Shape, subscribeRound } from './fan-out.ts';
import { createFeed } from './feed.ts';
import type { ServerArgs, VariantName } from './messages.ts';
import { type LatencyResult, latencyPhase, type MemoryResult, memoryPhase } from './platform-phases.ts';
import { type Server, startServer, startWorkers, type Workers } from './processes.ts';
import { type PublishShape, publishPathRound } from './publish-path.ts';
import { type BenchReport, type RoundResult, writeReport } from './report.ts';
import type { PublishRoundResult } from './report-publish-path.ts';

const env = process.env;
const { num, list } = benchEnvReaders(env);
const settings = {
  rounds: num('BENCH_ROUNDS', 3),
  durationS: num('BENCH_DURATION_S', 5),
  rampS: 1,
  fixedDeliveriesPerS: num('BENCH_FIXED_RATE', 20_000),
  windowDeliveries: num('BENCH_WINDOW', 100_000),
  clientWorkers: num('BENCH_CLIENT_WORKERS', 2),
  connectConcurrency: 50,
  drainTimeoutMs: 20_000,
  variants: list('BENCH_VARIANTS', 'bare-ws,socketio,lattice') as VariantName[],
  shapes: list('BENCH_SHAPES', 'a,b,pa,pb'),
  scale: num('BENCH_SCALE', 1),
  latencyS: num('BENCH_LATENCY_S', 10),
  memoryConnections: num('BENCH_MEMORY_CONNECTIONS', 10_000),
  memoryVariants: list('BENCH_MEMORY_VARIANTS', 'lattice,bare-ws,socketio') as VariantName[],
  latencyVariants: list('BENCH_LATENCY_VARIANTS', 'lattice') as VariantName[],
  logLevel: benchLogLevel(env),
  write: env.BENCH_WRITE !== '0',
};
const scaled = (n: number) => Math.max(1, Math.round(n * settings.scale));
const SHAPES: Shape[] = [
  { id: 'a', channels: 1, subscribersPerChannel: scaled(2000) },
  { id: 'b', channels: 100, subscribersPerChannel: scaled(20) },
];
const PUBLISH_SHAPES: PublishShape[] = [
  { id: 'pa', channels: 1, subscribersPerChannel: scaled(2000), publishesPerS: scaled(20) },
  { id: 'pb', channels: 100, subscribersPerChannel: scaled(20), publishesPerS: scaled(2000) },
];
/** The servers the publish-path shapes compare: the gateway through the platform, bare ws from Redis. */
const PUBLISH_PATH_VARIANTS: VariantName[] = ['bare-ws', 'lattice'];
const LATENCY = { channels: 100, subscribersPerChannel: scaled(10), ratePerS: scaled(1000) };

const log = (line: string) => process.stderr.write(`bench:gateway ${line}\n`);
const baseConfig = loadConfig(env);
const runId = newId().slice(0, 8);
/** One epoch string for every channel of the run; channels are fresh per round and shape. */
const epoch = `bench-${runId}`;

async function fanOut(
  server: Server,
  workers: Workers,
  shape: Shape,
  round: number,
  label: string,
  phases: { fixed: boolean },
): Promise<RoundResult> {
  const { channels, connectMs } = await subscribeRound(server, workers, shape, round, label, false, log);
  const feed = createFeed(baseConfig.redisUrl, server.ready.feed, epoch);
  try {
    const run = new FanOutRun({ server, workers, feed, channels, shape, settings, log });
    const saturation = await run.phase(`${label} saturation`, { kind: 'saturation' });
    const fixed: PhaseResult | null = phases.fixed
      ? await run.phase(`${label} fixed`, { kind: 'fixed', deliveriesPerS: settings.fixedDeliveriesPerS })
      : null;
    const line = (p: PhaseResult) =>
      `${p.deliveriesPerS.toFixed(0).padStart(7)} deliveries/s, server ${p.serverCpuUsPerDelivery.toFixed(2)} µs/delivery (${p.serverCores.toFixed(2)} cores), clients ${p.clientCores.toFixed(2)}, feed ${p.feedCores.toFixed(2)}, redis ${p.redisCores.toFixed(2)} cores, ${p.tcpRetransmits} TCP retransmits`;
    log(`${label} saturation: ${line(saturation)}`);
    if (fixed)
      log(`${label} fixed ${fixed.targetPerS}/s: ${line(fixed)}${fixed.fellBehind ? ' FELL BEHIND' : ''}`);
    return { variant: server.name, shape: shape.id, round, connectMs, saturation, fixed };
  } finally {
    await feed.close();
    await workers.close();
  }
}

async function main(): Promise<void> {
  log(`settings ${JSON.stringify(settings)}`);
  const loadBefore = loadavg()[0] ?? 0;
  const shapes = SHAPES.filter((s) => settings.shapes.includes(s.id));
  const publishShapes = PUBLISH_SHAPES.filter((s) => settings.shapes.includes(s.id));
  const logs = createLogFiles('gateway');
  const serverArgs = (variant: VariantName, suffix: string, publishHook: boolean): ServerArgs => ({
    variant,
    redisUrl: baseConfig.redisUrl,
    redisKeyPrefix: `lattice-bench:${runId}-${variant}${suffix}:`,
    productId: `bench-${runId}`,
    databaseUrl: databaseUrlFor(baseConfig.databaseUrl, 'lattice_bench'),
    publishHook,
    logLevel: settings.logLevel,
    logDir: logs.dir,
  });
  const workers = await startWorkers(settings.clientWorkers, settings.connectConcurrency);
  const servers: Server[] = [];
  const skipped: Array<{ variant: VariantName; reason: string }> = [];
  let failed = true;
  try {
    for (const variant of settings.variants) {
      const hook =
        settings.latencyVariants.includes(variant) || (variant === 'lattice' && publishShapes.length > 0);
      const started = await startServer(serverArgs(variant, '', hook));
      if ('failed' in started) {
        log(`${variant}: SKIPPED, its server did not start: ${started.failed}`);
        skipped.push({ variant, reason: started.failed });
      } else {
        log(`${variant}: server pid ${started.ready.pid} at ${started.ready.url}`);
        servers.push(started);
      }
    }
    if (servers.length === 0) throw new Error('no server started');

    log('warming up (shape b, saturation only)…');
    const saved = settings.durationS;
    settings.durationS = 2;
    for (const server of servers) {
      await fanOut(server, workers, SHAPES[1]!, 0, `warmup ${server.name}`, { fixed: false });
    }
    settings.durationS = saved;

    const rounds: RoundResult[] = [];
    const publishRounds: PublishRoundResult[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      // Alternating, reversed every other round, so drift on the machine hits every server alike.
      const order = round % 2 === 1 ? servers : [...servers].reverse();
      const tag = `${round}/${settings.rounds}`;
      for (const shape of shapes) {
        for (const server of order) {
          const label = `${server.name} ${shape.id} ${tag}`;
          rounds.push(await fanOut(server, workers, shape, round, label, { fixed: true }));
        }
      }
      for (const shape of publishShapes) {
        for (const server of order.filter((s) => PUBLISH_PATH_VARIANTS.includes(s.name))) {
          const label = `${server.name} ${shape.id} ${tag}`;
          const { connectMs, result } = await publishPathRound({
            server,
            workers,
            shape,
            round,
            label,
            settings,
            redisUrl: baseConfig.redisUrl,
            epoch,
            log,
          });
          log(
            `${label}: ${result.deliveriesPerS.toFixed(0)} of ${result.targetDeliveriesPerS} deliveries/s, ${result.publishesPerS.toFixed(0)} publishes/s, server ${result.serverCores.toFixed(2)} cores, platform ${result.platformCores.toFixed(2)}, clients ${result.clientCores.toFixed(2)}; p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms${result.fellBehind ? ' FELL BEHIND' : ''}`,
          );
          publishRounds.push({ variant: server.name, shape: shape.id, round, connectMs, result });
        }
      }
    }

    const latency = new Map<VariantName, LatencyResult>();
    const memory = new Map<VariantName, MemoryResult>();
    for (const server of servers.filter((s) => settings.latencyVariants.includes(s.name))) {
      if (server.ready.publish === undefined) continue;
      log(`${server.name} latency: ${LATENCY.ratePerS} msg/s over HTTP for ${settings.latencyS} s…`);
      const r = await latencyPhase(
        server,
        workers,
        baseConfig.redisUrl,
        {
          channelPrefix: `${server.ready.channelPrefix ?? 'bench:'}lat-`,
          ...LATENCY,
          durationS: settings.latencyS,
        },
        log,
      );
      log(
        `${server.name} latency: p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms over ${r.deliveries} deliveries (at Redis, before the server: p50 ${r.atRedisP50Ms.toFixed(1)} ms, p99 ${r.atRedisP99Ms.toFixed(1)} ms)`,
      );
      latency.set(server.name, r);
    }
    for (const name of settings.memoryVariants.filter((v) => servers.some((s) => s.name === v))) {
      // A fresh server process: its memory before the connections is that of an idle server,
      // not one whose heap the fan-out phases grew.
      const fresh = await startServer(serverArgs(name, '-mem', false));
      if ('failed' in fresh) {
        log(`${name} memory: SKIPPED, its server did not start: ${fresh.failed}`);
        continue;
      }
      try {
        log(`${name} memory: ${settings.memoryConnections} idle subscribed connections…`);
        const r = await memoryPhase(
          fresh,
          workers,
          {
            channelPrefix: `${fresh.ready.channelPrefix ?? 'bench:'}mem-`,
            connections: settings.memoryConnections,
            channels: 100,
          },
          log,
        );
        memory.set(name, r);
      } finally {
        await fresh.stop();
      }
    }

    const report: BenchReport = {
      date: new Date().toISOString(),
      node: process.version,
      cpu: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown'}`,
      settings,
      shapes,
      publishShapes,
      variants: servers.map((s) => s.name),
      skipped,
      rounds,
      publishRounds,
      latency: [...latency].map(([variant, r]) => ({ variant, ...r })),
      memory: [...memory].map(([variant, r]) => ({ variant, ...r })),
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    };
    for (const line of writeReport(report, settings.write)) log(line);
    failed = false;
  } finally {
    for (const s of servers) await s.stop().catch(() => {});
    workers.stop();
    if (failed) log(`the Lattice processes' logs are kept in ${logs.dir}`);
    else logs.remove();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
