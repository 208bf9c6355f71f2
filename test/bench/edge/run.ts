// `npm run bench:edge`: throughput and p99 latency of a keyed public route through the whole
// edge pipeline versus the same express app with only the trivial handler, measured in one run
// on this machine, written to docs/benchmarks.md. Settings (environment, read here only):
//   BENCH_DURATION_S (5)  BENCH_ROUNDS (10)  BENCH_CONNECTIONS (32)  BENCH_KEYS (100000)
//   BENCH_WRITE (1: update docs/benchmarks.md)
//   BENCH_LOG_LEVEL (the edges', default the production one; edge-warn is always at warn)
//   BENCH_PROFILE_DIR (when set, V8 CPU profiles of the servers are written there)
//   BENCH_VARIANTS (comma-separated labels: run only these; bare and edge are needed)
//   BENCH_BASELINE_DIR (when set: a checkout of an earlier version, with this bench's files and
//     node_modules, whose edge and edge-spread servers run as extra variants `… (before)` in the
//     same alternating rounds, for a paired before/after comparison on the same machine state)
import { fork } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, loadConfig, newId } from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra, postgresAnswers, redisAnswers } from '@lattice/infra';
import { closeRedis, createRedis } from '@lattice/redis';
import { createDb, migrateLatest } from '@lattice/store';
import { benchEnvReaders } from '../support/bench-env.ts';
import { controlOf, nextMessage } from '../support/child-messages.ts';
import { benchLogLevel, createLogFiles, type LogLevel } from '../support/platform-log.ts';
import type { ServerArgs, ServerMessage } from './bench-server.ts';
import { type LoadRequest, load, type Server } from './load.ts';
import { type BenchReport, type RoundResult, writeReport } from './report.ts';
import { clearSeed, seedKeys } from './seed.ts';

const env = process.env;
const { num } = benchEnvReaders(env);
const settings = {
  // Many short rounds rather than a few long ones: the machine's speed drifts by a fifth over tens
  // of seconds, and a pair measured within seconds of each other shares more of it.
  durationS: num('BENCH_DURATION_S', 5),
  warmupS: 3,
  rounds: num('BENCH_ROUNDS', 10),
  connections: num('BENCH_CONNECTIONS', 32),
  keys: num('BENCH_KEYS', 100_000),
  logLevel: benchLogLevel(env),
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

/** `baselineDir`: run the bench server of another checkout (BENCH_BASELINE_DIR) instead of this one. */
async function startServer(args: ServerArgs, logName: string, baselineDir?: string): Promise<Server> {
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
    logName,
    ready,
    ...controlOf(child, `${args.mode} server`),
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
  const logs = createLogFiles('edge');
  let failed = true;
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
    const add = async (
      label: string,
      mode: ServerArgs['mode'],
      req: LoadRequest,
      opts: { baselineDir?: string; logLevel?: LogLevel } = {},
    ) => {
      if (settings.only && !settings.only.includes(label)) return undefined;
      // Each server counts in a key space of its own, as separate deployments would: the edge's
      // leases (1024 units of a limit too high to reach) must not use up edge-spread's 100.
      const name = label.replace(/[^a-z-]/g, '');
      const server = await startServer(
        {
          ...args,
          mode,
          redisKeyPrefix: `${redisKeyPrefix}${name}:`,
          logLevel: opts.logLevel ?? settings.logLevel,
          logFile: logs.pathOf(name),
        },
        name,
        opts.baselineDir,
      );
      servers.push(server);
      variants.push({ label, server, request: req });
      return server;
    };
    await add('bare', 'bare', request);
    const edge = await add('edge', 'edge', request);
    if (!edge) throw new Error('BENCH_VARIANTS must include edge');
    await add('edge-spread', 'edge-spread', spreadRequest);
    await add('edge-local', 'edge-local', request);
    // What the production log level costs: the same edge without its request log lines.
    await add('edge-warn', 'edge', request, { logLevel: 'warn' });
    if (settings.baselineDir) {
      await add('edge (before)', 'edge', request, { baselineDir: settings.baselineDir });
      await add('edge-spread (before)', 'edge-spread', spreadRequest, { baselineDir: settings.baselineDir });
    }
    log(`edge snapshot: ${edge.ready.snapshotKeys} keys loaded in ${edge.ready.snapshotLoadMs} ms`);
    for (const v of variants) {
      const check = await fetch(`${v.server.url}${request.path}`, { headers: request.headers });
      if (check.status !== 200) throw new Error(`${v.label} answered ${check.status}: ${await check.text()}`);
    }

    log('warming up…');
    for (const v of variants)
      await load(
        `warmup ${v.label}`,
        v.server,
        v.request,
        settings.warmupS,
        redis,
        logs,
        settings.connections,
        log,
      );
    const rounds: RoundResult[] = [];
    // The breakdown rows, then the headline pair (bare, edge) back to back, edge-spread first:
    // it leaves Redis and the kernel busy for a moment, and the other breakdown rows stand between
    // it and the pair. Every other round runs the whole order reversed (edge, bare, …, edge-spread),
    // so a machine speeding up or slowing down through a cycle favours no variant, and the pair
    // still never follows edge-spread.
    const spread = (v: (typeof variants)[number]) => v.label.startsWith('edge-spread');
    const cycle = [
      ...variants.filter(spread),
      ...variants.filter((v) => !HEADLINE.has(v.label) && !spread(v)),
      ...variants.filter((v) => HEADLINE.has(v.label)),
    ];
    for (let round = 1; round <= settings.rounds; round++) {
      const order = round % 2 === 1 ? cycle : [...cycle].reverse();
      for (const v of order) {
        rounds.push(
          await load(
            `${v.label} ${round}/${settings.rounds}`,
            v.server,
            v.request,
            settings.durationS,
            redis,
            logs,
            settings.connections,
            log,
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
    failed = false;
  } finally {
    for (const s of servers) await s.stop().catch(() => {});
    // edge-spread leaves one counter per address it named: delete in slices.
    const keys = await redis.keys(`${redisKeyPrefix}*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await clearSeed(db);
    await closeRedis(redis);
    await db.destroy();
    if (failed) log(`the edges' logs are kept in ${logs.dir}`);
    else logs.remove();
    if (startedInfra.length > 0)
      log(`infra started for the bench is left running: ${startedInfra.join(', ')}`);
  }
}

await main();
