// `npm run bench:edge`: throughput and p99 latency of a keyed public route through the whole
// edge pipeline versus the same express app with only the trivial handler, measured in one run
// on this machine, written to docs/benchmarks.md. Settings (environment, read here only):
//   BENCH_DURATION_S (5)  BENCH_ROUNDS (10)  BENCH_CONNECTIONS (32)  BENCH_KEYS (100000)
//   BENCH_WRITE (1: update docs/benchmarks.md)
//   BENCH_PROFILE_DIR (when set, V8 CPU profiles of the servers are written there)
//   BENCH_VARIANTS (comma-separated labels: run only these; bare and edge are needed)
//   BENCH_BASELINE_DIR (when set: a checkout of an earlier version, with this bench's files and
//     node_modules, whose edge and edge-spread servers run as extra variants `… (before)` in the
//     same alternating rounds, for a paired before/after comparison on the same machine state)
import { type ChildProcess, fork } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, loadConfig, newId } from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra, postgresAnswers, redisAnswers } from '@lattice/infra';
import { closeRedis, createRedis } from '@lattice/redis';
import { createDb, migrateLatest } from '@lattice/store';
import autocannon from 'autocannon';
import { controlOf, nextMessage } from '../support/child-messages.ts';
import type { ServerArgs, ServerMessage } from './bench-server.ts';
import { type BenchReport, type RoundResult, writeReport } from './report.ts';
import { clearSeed, seedKeys } from './seed.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const settings = {
  // Many short rounds rather than a few long ones: the machine's speed drifts by a fifth over tens
  // of seconds, and a pair measured within seconds of each other shares more of it.
  durationS: num('BENCH_DURATION_S', 5),
  warmupS: 3,
  rounds: num('BENCH_ROUNDS', 10),
  connections: num('BENCH_CONNECTIONS', 32),
  keys: num('BENCH_KEYS', 100_000),
  write: env.BENCH_WRITE !== '0',
  profileDir: env.BENCH_PROFILE_DIR,
  baselineDir: env.BENCH_BASELINE_DIR,
  /** Comma-separated variant labels to run (default all); for quick partial runs, never for the report. */
  only: env.BENCH_VARIANTS?.split(',').map((v) => v.trim()),
};
const BENCH_DATABASE = 'lattice_bench';
/** The variants of the headline ratio, measured next to each other in every round. */
const HEADLINE = new Set(['bare', 'edge', 'edge (before)']);

const log = (line: string) => process.stdout.write(`bench:edge ${line}\n`);
const logger = createLogger({ name: 'bench', level: 'warn' });
const baseConfig = loadConfig(env);
const databaseUrl = databaseUrlFor(baseConfig.databaseUrl, BENCH_DATABASE);

interface Server {
  child: ChildProcess;
  url: string;
  ready: Extract<ServerMessage, { type: 'ready' }>;
  cpuUs(): Promise<number>;
  stop(): Promise<void>;
}

/** `baselineDir`: run the bench server of another checkout (BENCH_BASELINE_DIR) instead of this one. */
async function startServer(args: ServerArgs, baselineDir?: string): Promise<Server> {
  const script = baselineDir
    ? join(baselineDir, 'test/bench/edge/bench-server.ts')
    : fileURLToPath(new URL('./bench-server.ts', import.meta.url));
  const profileName = `${args.mode}${baselineDir ? '-before' : ''}.cpuprofile`;
  const child = fork(script, [JSON.stringify(args)], {
    ...(baselineDir ? { cwd: baselineDir } : {}),
    execArgv: [
      '--import',
      'tsx',
      ...(settings.profileDir
        ? ['--cpu-prof', `--cpu-prof-dir=${settings.profileDir}`, `--cpu-prof-name=${profileName}`]
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T extends ServerMessage['type']>(type: T) =>
    nextMessage<ServerMessage, T>(child, type, `${args.mode} server`);
  const ready = await next('ready');
  return {
    child,
    url: ready.url,
    ready,
    ...controlOf(child, `${args.mode} server`),
  };
}

/** Redis server CPU so far, in microseconds (INFO cpu). */
async function redisCpuUs(redis: ReturnType<typeof createRedis>): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_sys') + field('used_cpu_user')) * 1e6;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

// edge-spread: a new client address per request, continuing across rounds; 2^20 addresses last
// longer than the rounds, so no address is seen twice in a window.
let spreadCounter = 0;
function nextSpreadAddress(): string {
  const i = spreadCounter++ & 0xfffff;
  return `10.${i >> 16}.${(i >> 8) & 0xff}.${i & 0xff}`;
}

interface LoadRequest {
  path: string;
  headers: Record<string, string>;
  /** Set X-Forwarded-For to a new address on every request (edge-spread). */
  spread?: boolean;
}

async function load(
  label: string,
  server: Server,
  request: LoadRequest,
  durationS: number,
  redis: ReturnType<typeof createRedis>,
): Promise<RoundResult> {
  const latencies: number[] = [];
  const perSecond: number[] = [];
  const cpuBefore = await server.cpuUs();
  const redisBefore = await redisCpuUs(redis);
  let done: (result: autocannon.Result) => void = () => {};
  let failed: (err: unknown) => void = () => {};
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    done = resolve;
    failed = reject;
  });
  const instance = autocannon(
    {
      url: `${server.url}${request.path}`,
      headers: request.headers,
      connections: settings.connections,
      pipelining: 1,
      duration: durationS,
      ...(request.spread
        ? {
            requests: [
              {
                // Rebuilds the request every time: a few µs more in the load generator.
                setupRequest: (r: autocannon.Request) => ({
                  ...r,
                  headers: { ...r.headers, 'x-forwarded-for': nextSpreadAddress() },
                }),
              },
            ],
          }
        : {}),
    },
    (err, result) => (err ? failed(err) : done(result)),
  );
  // Exact latencies (autocannon's own histogram keeps whole milliseconds).
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode === 200) latencies.push(responseTimeMs);
  });
  // The typings declare 'tick' without its argument; autocannon passes { counter, bytes }.
  const events: NodeJS.EventEmitter = instance;
  events.on('tick', ({ counter }: { counter: number }) => {
    // autocannon ticks once more after the duration, for the last partial second.
    if (perSecond.length >= durationS) return;
    perSecond.push(counter);
    log(
      `  ${label.padEnd(16)} ${String(perSecond.length).padStart(3)} s  ${String(counter).padStart(6)} req/s`,
    );
  });
  const result = await finished;
  const cpuUs = (await server.cpuUs()) - cpuBefore;
  const redisUs = (await redisCpuUs(redis)) - redisBefore;
  const sorted = Float64Array.from(latencies).sort();
  const ok = result['2xx'];
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors: the bench is not measuring the pass path`,
    );
  }
  const round: RoundResult = {
    label,
    requests: ok,
    rps: ok / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    serverCpuUsPerRequest: cpuUs / ok,
    redisCpuUsPerRequest: redisUs / ok,
    perSecond,
  };
  log(
    `${label.padEnd(18)} ${round.rps.toFixed(0).padStart(6)} req/s  p50 ${round.p50Ms.toFixed(2)} ms  p99 ${round.p99Ms.toFixed(2)} ms  server ${round.serverCpuUsPerRequest.toFixed(1)} µs/req  redis ${round.redisCpuUsPerRequest.toFixed(1)} µs/req`,
  );
  return round;
}

async function main(): Promise<void> {
  log(`settings ${JSON.stringify(settings)}`);
  let startedInfra: string[] = [];
  if (!(await redisAnswers(baseConfig.redisUrl)) || !(await postgresAnswers(baseConfig.databaseUrl))) {
    log('starting infra…');
    startedInfra = (await ensureInfra({ config: baseConfig, logger, searchPath: env.PATH ?? '' })).started;
  }
  await ensureDatabase(databaseUrl, { logger });
  const db = createDb({ databaseUrl, logger });
  await migrateLatest(db, logger);
  const redis = createRedis({ url: baseConfig.redisUrl, logger, name: 'bench-admin' });
  const redisKeyPrefix = `lattice-bench:${newId()}:`;
  const servers: Server[] = [];
  try {
    const seedStartedMs = Date.now();
    const seeded = await seedKeys(db, settings.keys);
    log(`seeded ${seeded.keys} keys in ${Date.now() - seedStartedMs} ms`);

    const args = { databaseUrl, redisUrl: baseConfig.redisUrl, redisKeyPrefix };
    const request: LoadRequest = {
      path: `/${seeded.productId}/mail/emails/e1`,
      headers: { authorization: `Bearer ${seeded.secret}`, accept: 'application/json' },
    };
    const spreadRequest: LoadRequest = { ...request, spread: true };
    const variants: Array<{ label: string; server: Server; request: LoadRequest }> = [];
    const add = async (label: string, mode: ServerArgs['mode'], req: LoadRequest, baselineDir?: string) => {
      if (settings.only && !settings.only.includes(label)) return undefined;
      // Each server counts in a key space of its own, as separate deployments would: the edge's
      // leases (1024 units of a limit too high to reach) must not use up edge-spread's 100.
      const ownPrefix = `${redisKeyPrefix}${label.replace(/[^a-z-]/g, '')}:`;
      const server = await startServer({ ...args, mode, redisKeyPrefix: ownPrefix }, baselineDir);
      servers.push(server);
      variants.push({ label, server, request: req });
      return server;
    };
    await add('bare', 'bare', request);
    const edge = await add('edge', 'edge', request);
    if (!edge) throw new Error('BENCH_VARIANTS must include edge');
    await add('edge-spread', 'edge-spread', spreadRequest);
    await add('edge-local', 'edge-local', request);
    if (settings.baselineDir) {
      await add('edge (before)', 'edge', request, settings.baselineDir);
      await add('edge-spread (before)', 'edge-spread', spreadRequest, settings.baselineDir);
    }
    log(`edge snapshot: ${edge.ready.snapshotKeys} keys loaded in ${edge.ready.snapshotLoadMs} ms`);
    for (const v of variants) {
      const check = await fetch(`${v.server.url}${request.path}`, { headers: request.headers });
      if (check.status !== 200) throw new Error(`${v.label} answered ${check.status}: ${await check.text()}`);
    }

    log('warming up…');
    for (const v of variants) await load(`warmup ${v.label}`, v.server, v.request, settings.warmupS, redis);
    const rounds: RoundResult[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      // Alternating, so drift on the machine (other tenants) hits every variant alike. The
      // breakdown rows run first (edge-spread leaves Redis and the kernel busy for a moment after
      // it, edge-local is a buffer), then the headline pair, in the reverse order every other round
      // (bare, edge, then edge, bare): a machine speeding up or slowing down through a cycle then
      // favours neither side of the pair.
      const headline = variants.filter((v) => HEADLINE.has(v.label));
      const order = [
        ...variants.filter((v) => !HEADLINE.has(v.label)),
        ...(round % 2 === 1 ? headline : [...headline].reverse()),
      ];
      for (const v of order) {
        rounds.push(
          await load(
            `${v.label} ${round}/${settings.rounds}`,
            v.server,
            v.request,
            settings.durationS,
            redis,
          ),
        );
      }
    }

    const report: BenchReport = {
      date: new Date().toISOString(),
      node: process.version,
      cpu: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
      settings,
      snapshotKeys: edge.ready.snapshotKeys ?? 0,
      snapshotLoadMs: edge.ready.snapshotLoadMs ?? 0,
      rounds,
    };
    const summary = writeReport(report, settings.write);
    for (const line of summary) log(line);
  } finally {
    for (const s of servers) await s.stop().catch(() => {});
    // edge-spread leaves one counter per address it named: delete in slices.
    const keys = await redis.keys(`${redisKeyPrefix}*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await clearSeed(db);
    await closeRedis(redis);
    await db.destroy();
    if (startedInfra.length > 0)
      log(`infra started for the bench is left running: ${startedInfra.join(', ')}`);
  }
}

await main();
