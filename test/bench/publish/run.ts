// `npm run bench:publish`: end-to-end realtime publishing on this machine, beside a bare kafkajs
// loop on the same broker in the same run, written to docs/benchmarks.md (its own section).
//   e2e   HTTP POST /{product}/realtime/messages on the production edge (public key check,
//         per-IP limit, quota and body validation) → 202 once durably in Kafka (acks=all) →
//         channel actor: offset, history row in PostgreSQL → Redis fan-out → received here by a
//         pattern subscriber. Latency: from just before the HTTP request to the fan-out message.
//         Every message is then checked to be in history.
//   bare  kafkajs producer → the same broker → kafkajs consumer, nothing else: one send per
//         message (acks=all, the kafkajs default), the same concurrency, keys and record count.
//         Latency: from just before send() to eachMessage.
// Rounds alternate e2e / bare; figures are medians over rounds. Settings (environment, read here):
//   BENCH_MESSAGES (20000 per round)  BENCH_CONCURRENCY (64 in flight)  BENCH_CHANNELS (100)
//   BENCH_ROUNDS (3)  BENCH_WRITE (1: update docs/benchmarks.md)
//   BENCH_PROFILE_DIR (when set, a V8 CPU profile of the server process is written there)
import type { ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createLogger, loadConfig, newId, sleep } from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra } from '@lattice/infra';
import { createKafka, loadCodec, TOPIC_CATALOG } from '@lattice/kafka';
import { type ChannelCommandRecord, channelCommandKey, publishCommandRecord } from '@lattice/realtime';
import { closeRedis, createRedis, fanOutChannelPattern } from '@lattice/redis';
import { createDb, type Db, migrateLatest } from '@lattice/store';
import type { Kafka } from 'kafkajs';
import { benchProduct } from '../support/bench-product.ts';
import { controlOf, forkBenchChild, nextMessage } from '../support/child-messages.ts';
import { percentile, pool, poster } from '../support/http-load.ts';
import type { ServerArgs, ServerMessage } from './bench-server.ts';
import { type BenchResult, type Round, writeReport } from './report.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const settings = {
  messages: num('BENCH_MESSAGES', 20_000),
  concurrency: num('BENCH_CONCURRENCY', 64),
  channels: num('BENCH_CHANNELS', 100),
  rounds: num('BENCH_ROUNDS', 3),
  write: env.BENCH_WRITE !== '0',
  profileDir: env.BENCH_PROFILE_DIR,
};
const PARTITIONS = 12;
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
  return {
    child,
    url: ready.url,
    ...controlOf(child, `bench ${args.role} server`),
  };
}

/** Sends, then waits for every message to be received; one progress line a second. */
async function measure(
  label: string,
  send: (i: number) => Promise<void>,
  received: () => number,
  latencies: Float64Array,
): Promise<Omit<Round, 'label' | 'cpuUsPerMessage' | 'edgeCpuUs' | 'actorsCpuUs'>> {
  const n = settings.messages;
  const cpuBefore = process.cpuUsage();
  const startedMs = performance.now();
  let sentMs = 0;
  let lastCount = 0;
  const ticker = setInterval(() => {
    const count = received();
    log(
      `  ${label.padEnd(12)} ${String(count).padStart(6)}/${n} received  ${String(count - lastCount).padStart(6)} msg/s`,
    );
    lastCount = count;
  }, 1000);
  try {
    await pool(n, settings.concurrency, send);
    sentMs = performance.now() - startedMs;
    const deadline = Date.now() + 120_000;
    while (received() < n) {
      if (Date.now() > deadline) throw new Error(`${label}: only ${received()} of ${n} received`);
      await sleep(2);
    }
  } finally {
    clearInterval(ticker);
  }
  const elapsedMs = performance.now() - startedMs;
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = Float64Array.from(latencies.subarray(0, n)).sort();
  return {
    messages: n,
    elapsedMs,
    sentPerSecond: n / (sentMs / 1000),
    perSecond: n / (elapsedMs / 1000),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    generatorCpuUs: (cpu.user + cpu.system) / n,
  };
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
): Promise<Round> {
  const n = settings.messages;
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
  const cpuBefore = await cpuOf(servers);
  const result = await measure(
    `e2e ${round}/${settings.rounds}`,
    async (i) => {
      const body = JSON.stringify({
        channel: `${channelPrefix}c${i % settings.channels}`,
        data: { i, text: 'hello' },
      });
      sentAt[i] = performance.now();
      const res = await http.post(body);
      if (res.status !== 202) throw new Error(`publish answered ${res.status}: ${res.text}`);
    },
    () => received,
    latencies,
  );
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
    label: `e2e ${round}/${settings.rounds}`,
    ...result,
    cpuUsPerMessage: edgeCpuUs + actorsCpuUs,
    edgeCpuUs,
    actorsCpuUs,
  };
}

/**
 * The bare loop's records are the same size as the e2e arm's: the key is the channel command key
 * of the same channel, and the value is padded to the size of the encoded Publish command the
 * edge produces for the same body (so neither arm moves fewer bytes through the broker). The pad
 * is measured once, outside the timed loop.
 */
function bareRecords(productId: string, round: number): (i: number) => { key: string; value: string } {
  const idOf = (i: number) => ({
    productId,
    environment: 'production' as const,
    channel: `bench:r${round}-c${i % settings.channels}`,
  });
  const codec = loadCodec<ChannelCommandRecord>(TOPIC_CATALOG.channelCommands.schema);
  const sample = settings.messages - 1;
  const encoded = codec.encode(
    publishCommandRecord({
      id: idOf(sample),
      commandId: newId(),
      messageId: newId(),
      name: null,
      data: { json: JSON.stringify({ i: sample, text: 'hello' }) },
      publisher: newId(),
      idempotencyKey: null,
      issuedAtMs: Date.now(),
    }),
  ).length;
  const pad = 'x'.repeat(Math.max(0, encoded - JSON.stringify({ i: sample, text: 'hello', pad: '' }).length));
  return (i) => ({ key: channelCommandKey(idOf(i)), value: JSON.stringify({ i, text: 'hello', pad }) });
}

async function bareRound(
  round: number,
  kafka: Kafka,
  topicPrefix: string,
  productId: string,
): Promise<Round> {
  const n = settings.messages;
  const topic = `${topicPrefix}bare-${round}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }],
  });
  const latencies = new Float64Array(n);
  const sentAt = new Float64Array(n);
  let received = 0;
  const consumer = kafka.consumer({ groupId: `${topic}-group`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let joined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    joined = true;
  });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const { i } = JSON.parse(message.value!.toString()) as { i: number };
      latencies[received++] = performance.now() - sentAt[i]!;
    },
  });
  while (!joined) await sleep(20);
  const producer = kafka.producer();
  await producer.connect();
  const recordOf = bareRecords(productId, round);
  try {
    return {
      label: `bare ${round}/${settings.rounds}`,
      ...(await measure(
        `bare ${round}/${settings.rounds}`,
        async (i) => {
          const { key, value } = recordOf(i);
          sentAt[i] = performance.now();
          await producer.send({ topic, acks: -1, messages: [{ key, value }] });
        },
        () => received,
        latencies,
      )),
      cpuUsPerMessage: Number.NaN,
      edgeCpuUs: Number.NaN,
      actorsCpuUs: Number.NaN,
    };
  } finally {
    await producer.disconnect();
    await consumer.disconnect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
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
  const args = { databaseUrl, redisKeyPrefix, kafkaTopicPrefix };
  const servers: Servers = {
    actors: await startServer({ ...args, role: 'actors' }),
    edge: await startServer({ ...args, role: 'edge' }),
  };
  const target = { productId, key: publicKey, redisKeyPrefix };
  const rounds: Round[] = [];
  try {
    log('warming up (the actors take their partitions)…');
    const saved = settings.messages;
    settings.messages = 2000;
    await e2eRound(0, servers, target, db);
    await bareRound(0, kafka, kafkaTopicPrefix, productId);
    settings.messages = saved;
    for (let round = 1; round <= settings.rounds; round++) {
      for (const r of [
        await e2eRound(round, servers, target, db),
        await bareRound(round, kafka, kafkaTopicPrefix, productId),
      ]) {
        rounds.push(r);
        log(
          `${r.label}: ${r.perSecond.toFixed(0)} msg/s (sent at ${r.sentPerSecond.toFixed(0)}/s), p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms` +
            (Number.isNaN(r.cpuUsPerMessage)
              ? ''
              : `, CPU µs/msg: edge ${r.edgeCpuUs.toFixed(0)}, actors ${r.actorsCpuUs.toFixed(0)}`) +
            `, load generator ${r.generatorCpuUs.toFixed(0)} µs/msg`,
        );
      }
    }
  } finally {
    await servers.edge.stop();
    await servers.actors.stop();
    const admin = kafka.admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(kafkaTopicPrefix));
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await db('products').where({ id: productId }).delete();
    await db.destroy();
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
