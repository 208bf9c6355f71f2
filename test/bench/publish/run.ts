// `npm run bench:publish`: end-to-end realtime publishing on this machine, beside a bare kafkajs
// loop on the same broker in the same run, written to docs/benchmarks.md (its own section).
//   e2e   HTTP POST /{product}/realtime/messages on the production edge (public key check,
//         per-IP limit, quota and body validation) → 202 once durably in Kafka (acks=all,
//         group commit) → channel actor: offset, history row in PostgreSQL → Redis fan-out →
//         received here by a pattern subscriber. Latency: from just before the HTTP request to
//         the fan-out message. Every message is then checked to be in history. The edge and the
//         actors run as `lattice start` runs them (bench-server.ts), logging at the production
//         level (support/platform-log.ts).
//   bare  kafkajs producer → the same broker → kafkajs consumer, nothing else: the producer
//         group-commits as Lattice's does (bare-group-commit.ts), with the same concurrency,
//         keys, record sizes and count. Latency: from just before the send to eachMessage.
// Rounds alternate e2e / bare, the order flipping every round; figures are medians over rounds.
// Settings (environment, read here):
//   BENCH_MESSAGES (20000 per round)  BENCH_CONCURRENCY (64 in flight)  BENCH_CHANNELS (100)
//   BENCH_ROUNDS (3)  BENCH_WARMUP (2000 per arm)  BENCH_WRITE (1: update docs/benchmarks.md)
//   BENCH_LOG_LEVEL (the platform's, default the production one)
//   BENCH_PROFILE_DIR (when set, a V8 CPU profile of the server process is written there)
import type { ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createLogger, loadConfig, newId } from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra } from '@lattice/infra';
import { createKafka } from '@lattice/kafka';
import { closeRedis, createRedis, fanOutChannelPattern } from '@lattice/redis';
import { createDb, type Db, migrateLatest } from '@lattice/store';
import { benchEnvReaders } from '../support/bench-env.ts';
import { benchProduct, deleteBenchProduct } from '../support/bench-product.ts';
import { controlOf, forkBenchChild, nextMessage } from '../support/child-messages.ts';
import { poster } from '../support/http-load.ts';
import { benchLogLevel, createLogFiles, type LogFiles } from '../support/platform-log.ts';
import { bareRound } from './bare-round.ts';
import type { ServerArgs, ServerMessage } from './bench-server.ts';
import { measure } from './measure.ts';
import { type BenchResult, type Round, writeReport } from './report.ts';

const env = process.env;
const { num } = benchEnvReaders(env);
const settings = {
  messages: num('BENCH_MESSAGES', 20_000),
  concurrency: num('BENCH_CONCURRENCY', 64),
  channels: num('BENCH_CHANNELS', 100),
  rounds: num('BENCH_ROUNDS', 3),
  warmup: num('BENCH_WARMUP', 2000),
  partitions: 12,
  logLevel: benchLogLevel(env),
  write: env.BENCH_WRITE !== '0',
  profileDir: env.BENCH_PROFILE_DIR,
};
const log = (line: string) => process.stdout.write(`bench:publish ${line}\n`);
// kafkajs reports the leader moves of a fresh topic as warnings; only errors are worth a line here.
const logger = createLogger({ name: 'bench-publish', level: 'error' });
const baseConfig = loadConfig(env);
const databaseUrl = databaseUrlFor(baseConfig.databaseUrl, 'lattice_bench');

interface Server {
  child: ChildProcess;
  url: string | null;
  cpuUs(): Promise<number>;
  stop(): Promise<void>;
}

async function startServer(args: ServerArgs): Promise<Server> {
  const child = forkBenchChild(new URL('./bench-server.ts', import.meta.url), args, settings.profileDir);
  const next = <T extends ServerMessage['type']>(type: T) =>
    nextMessage<ServerMessage, T>(child, type, `bench ${args.role} server`);
  const ready = await next('ready');
  return { child, url: ready.url, ...controlOf(child, `bench ${args.role} server`) };
}

/** The two role processes: CPU is reported for both together. */
interface Servers {
  edge: Server;
  actors: Server;
}

const cpuOf = async (s: Servers) => ({ edge: await s.edge.cpuUs(), actors: await s.actors.cpuUs() });

async function e2eRound(
  round: number,
  servers: Servers,
  target: { productId: string; key: string; redisKeyPrefix: string },
  db: Db,
  logs: LogFiles,
): Promise<Round> {
  const n = settings.messages;
  const label = `e2e ${round}/${settings.rounds}`;
  const latencies = new Float64Array(n);
  const sentAt = new Float64Array(n);
  let received = 0;
  const channelPrefix = `bench:r${round}-`;
  const sub = createRedis({ url: baseConfig.redisUrl, logger, name: 'bench-fanout' });
  sub.on('pmessage', (_p: string, _c: string, text: string) => {
    const m = JSON.parse(text) as { type: string; data?: { i: number } };
    if (m.type !== 'publication' || m.data === undefined) return;
    latencies[received++] = performance.now() - sentAt[m.data.i]!;
  });
  await sub.psubscribe(
    fanOutChannelPattern(target.redisKeyPrefix, target.productId, 'production', channelPrefix),
  );
  const http = poster(
    `${servers.edge.url}/${target.productId}/realtime/messages`,
    { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
    settings.concurrency,
  );
  logs.take('edge');
  logs.take('actors');
  const cpuBefore = await cpuOf(servers);
  const result = await measure({
    label,
    messages: n,
    concurrency: settings.concurrency,
    send: async (i) => {
      const body = JSON.stringify({
        channel: `${channelPrefix}c${i % settings.channels}`,
        data: { i, text: 'hello' },
      });
      sentAt[i] = performance.now();
      const res = await http.post(body);
      if (res.status !== 202) throw new Error(`publish answered ${res.status}: ${res.text}`);
    },
    received: () => received,
    latencies,
    log,
  });
  const cpuAfter = await cpuOf(servers);
  const edgeCpuUs = (cpuAfter.edge - cpuBefore.edge) / n;
  const actorsCpuUs = (cpuAfter.actors - cpuBefore.actors) / n;
  http.close();
  await closeRedis(sub);
  const [row] = await db('channel_history')
    .where({ product_id: target.productId, environment: 'production' })
    .andWhere('channel', 'like', `${channelPrefix}%`)
    .count<{ c: string }[]>({ c: '*' });
  const inHistory = Number(row?.c ?? 0);
  if (inHistory !== n) throw new Error(`e2e round ${round}: ${inHistory} of ${n} messages in history`);
  return {
    label,
    ...result,
    cpuUsPerMessage: edgeCpuUs + actorsCpuUs,
    edgeCpuUs,
    actorsCpuUs,
    edgeLogBytes: logs.take('edge') / n,
    actorsLogBytes: logs.take('actors') / n,
    recordsPerRequest: Number.NaN,
  };
}

function logRound(r: Round): void {
  log(
    `${r.label}: ${r.perSecond.toFixed(0)} msg/s (sent at ${r.sentPerSecond.toFixed(0)}/s), p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms` +
      (Number.isNaN(r.cpuUsPerMessage)
        ? `, ${r.recordsPerRequest.toFixed(1)} records per produce request`
        : `, CPU µs/msg: edge ${r.edgeCpuUs.toFixed(0)}, actors ${r.actorsCpuUs.toFixed(0)}; log bytes/msg: edge ${r.edgeLogBytes.toFixed(0)}, actors ${r.actorsLogBytes.toFixed(0)}`) +
      `, load generator ${r.generatorCpuUs.toFixed(0)} µs/msg`,
  );
}

async function main(): Promise<void> {
  log(`settings ${JSON.stringify(settings)}`);
  const loadBefore = loadavg()[0] ?? 0;
  await ensureInfra({ config: baseConfig, logger, searchPath: env.PATH ?? '' });
  await ensureDatabase(databaseUrl, { logger });
  const db = createDb({ databaseUrl, logger });
  await migrateLatest(db, logger);
  const kafkaTopicPrefix = `bench-publish-${newId().slice(0, 8)}.`;
  const redisKeyPrefix = `lattice-bench:${newId()}:`;
  const kafka = createKafka({ brokers: baseConfig.kafkaBrokers, clientId: 'bench-publish-bare', logger });
  const { productId, publicKey } = await benchProduct(db, `bench-publish-${newId()}`);
  const logs = createLogFiles('publish');
  const args = { databaseUrl, redisKeyPrefix, kafkaTopicPrefix, logLevel: settings.logLevel };
  const servers: Servers = {
    actors: await startServer({ ...args, role: 'actors', logFile: logs.pathOf('actors') }),
    edge: await startServer({ ...args, role: 'edge', logFile: logs.pathOf('edge') }),
  };
  const target = { productId, key: publicKey, redisKeyPrefix };
  const rounds: Round[] = [];
  let failed = true;
  try {
    log('warming up (the actors take their partitions)…');
    const saved = settings.messages;
    settings.messages = settings.warmup;
    await e2eRound(0, servers, target, db, logs);
    await bareRound(settings, 0, kafka, kafkaTopicPrefix, productId, log);
    settings.messages = saved;
    for (let round = 1; round <= settings.rounds; round++) {
      // The order flips every round: a machine speeding up or slowing down favours neither arm.
      const order = round % 2 === 1 ? (['e2e', 'bare'] as const) : (['bare', 'e2e'] as const);
      for (const arm of order) {
        const r =
          arm === 'e2e'
            ? await e2eRound(round, servers, target, db, logs)
            : await bareRound(settings, round, kafka, kafkaTopicPrefix, productId, log);
        rounds.push(r);
        logRound(r);
      }
    }
    failed = false;
  } finally {
    await servers.edge.stop();
    await servers.actors.stop();
    const admin = kafka.admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(kafkaTopicPrefix));
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await deleteBenchProduct(db, productId);
    await db.destroy();
    if (failed) log(`the platform's logs are kept in ${logs.dir}`);
    else logs.remove();
  }
  const result: BenchResult = {
    at: new Date(),
    machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`,
    settings,
    rounds,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
  };
  for (const line of writeReport(result, settings.write)) log(line);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
