// `npm run bench:edge`: throughput and p99 latency of a keyed public route through the whole
// edge pipeline versus the same express app with only the trivial handler, measured in one run
// on this machine, written to docs/benchmarks.md. Settings (environment, read here only):
//   BENCH_DURATION_S (10)  BENCH_ROUNDS (3)  BENCH_CONNECTIONS (32)  BENCH_KEYS (100000)
//   BENCH_WRITE (1: update docs/benchmarks.md)
//   BENCH_PROFILE_DIR (when set, V8 CPU profiles of both servers are written there)
import { type ChildProcess, fork } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createLogger, loadConfig, newId } from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra, postgresAnswers, redisAnswers } from '@lattice/infra';
import { closeRedis, createRedis } from '@lattice/redis';
import { createDb, migrateLatest } from '@lattice/store';
import autocannon from 'autocannon';
import type { ServerArgs, ServerMessage } from './bench-server.ts';
import { type BenchReport, type RoundResult, writeReport } from './report.ts';
import { clearSeed, seedKeys } from './seed.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const settings = {
  durationS: num('BENCH_DURATION_S', 10),
  warmupS: 3,
  rounds: num('BENCH_ROUNDS', 3),
  connections: num('BENCH_CONNECTIONS', 32),
  keys: num('BENCH_KEYS', 100_000),
  write: env.BENCH_WRITE !== '0',
  profileDir: env.BENCH_PROFILE_DIR,
};
const BENCH_DATABASE = 'lattice_bench';

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

async function startServer(args: ServerArgs): Promise<Server> {
  const child = fork(fileURLToPath(new URL('./bench-server.ts', import.meta.url)), [JSON.stringify(args)], {
    execArgv: [
      '--import',
      'tsx',
      ...(settings.profileDir
        ? ['--cpu-prof', `--cpu-prof-dir=${settings.profileDir}`, `--cpu-prof-name=${args.mode}.cpuprofile`]
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T extends ServerMessage['type']>(type: T) =>
    new Promise<Extract<ServerMessage, { type: T }>>((resolve, reject) => {
      const onMessage = (m: ServerMessage) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        resolve(m as Extract<ServerMessage, { type: T }>);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`${args.mode} server exited with ${code}`)));
    });
  const ready = await next('ready');
  return {
    child,
    url: ready.url,
    ready,
    async cpuUs() {
      const answer = next('cpu');
      child.send({ type: 'cpu' });
      const { userUs, systemUs } = await answer;
      return userUs + systemUs;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await exited;
    },
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

async function load(
  label: string,
  server: Server,
  request: { path: string; headers: Record<string, string> },
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
  return {
    label,
    requests: ok,
    rps: ok / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    serverCpuUsPerRequest: cpuUs / ok,
    redisCpuUsPerRequest: redisUs / ok,
    perSecond,
  };
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
    const bare = await startServer({ ...args, mode: 'bare' });
    servers.push(bare);
    const edge = await startServer({ ...args, mode: 'edge' });
    servers.push(edge);
    const edgeLocal = await startServer({ ...args, mode: 'edge-local' });
    servers.push(edgeLocal);
    log(`edge snapshot: ${edge.ready.snapshotKeys} keys loaded in ${edge.ready.snapshotLoadMs} ms`);

    const request = {
      path: `/${seeded.productId}/mail/emails/e1`,
      headers: { authorization: `Bearer ${seeded.secret}`, accept: 'application/json' },
    };
    const check = await fetch(`${edge.url}${request.path}`, { headers: request.headers });
    if (check.status !== 200) throw new Error(`edge answered ${check.status}: ${await check.text()}`);

    log('warming up…');
    await load('warmup bare', bare, request, settings.warmupS, redis);
    await load('warmup edge', edge, request, settings.warmupS, redis);
    await load('warmup edge-local', edgeLocal, request, settings.warmupS, redis);
    const rounds: RoundResult[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      // Alternating, so drift on the machine (other load, thermal) hits both sides alike.
      rounds.push(await load(`bare ${round}/${settings.rounds}`, bare, request, settings.durationS, redis));
      rounds.push(await load(`edge ${round}/${settings.rounds}`, edge, request, settings.durationS, redis));
      rounds.push(
        await load(`edge-local ${round}/${settings.rounds}`, edgeLocal, request, settings.durationS, redis),
      );
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
    const keys = await redis.keys(`${redisKeyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await clearSeed(db);
    await closeRedis(redis);
    await db.destroy();
    if (startedInfra.length > 0)
      log(`infra started for the bench is left running: ${startedInfra.join(', ')}`);
  }
}

await main();
