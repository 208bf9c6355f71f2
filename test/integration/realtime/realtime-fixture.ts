// What the realtime integration tests share: a product with namespaces, a unique channel command
// topic (12 partitions) and dead-letter topic, a unique Redis key prefix, a producer, and helpers
// to publish, to subscribe to fan-out and to wait for the channel actors' work in PostgreSQL.
import { createLogger, type Logger, newId, sleep } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import {
  type Codec,
  createActorHost,
  createKafka,
  createKafkaDeadLetterSink,
  createRecordProducer,
  type DeadLetter,
  ensureTopics,
  loadCodec,
  type RecordProducer,
  TOPIC_CATALOG,
  topicName,
} from '@lattice/kafka';
import {
  type ChannelCommandRecord,
  type ChannelId,
  channelCommandKey,
  createChannelActorKind,
  createPostgresNamespaceRepository,
  type NamespacePolicy,
  type NamespaceRepository,
  publishCommandRecord,
} from '@lattice/realtime';
import { closeRedis, createRedis, fanOutChannel, presenceResultPattern } from '@lattice/redis';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import type { Redis } from 'ioredis';
import type { Admin, Kafka } from 'kafkajs';
import { Registry } from 'prom-client';

export const PARTITIONS = 12;
export const config = testConfig();

export interface RealtimeFixture {
  logger: Logger;
  db: Db;
  kafka: Kafka;
  admin: Admin;
  producer: RecordProducer;
  codec: Codec<ChannelCommandRecord>;
  topicPrefix: string;
  topic: string;
  dlq: string;
  group: string;
  redisKeyPrefix: string;
  /** A command connection for the tests' own use (fan-out in the test process). */
  redis: Redis;
  productId: string;
  namespaces: NamespaceRepository;
  id(channel: string): ChannelId;
  close(): Promise<void>;
}

export async function createRealtimeFixture(name: string): Promise<RealtimeFixture> {
  const logger = createLogger({ name, level: config.logLevel });
  const db = createDb({ databaseUrl: config.databaseUrl, poolMax: 20 });
  await migrateLatest(db, createLogger({ name: 'migrate', level: 'warn' }));
  const productId = (await bootstrapProduct(db, { name: uniqueName(name) })).product_id;
  const topicPrefix = `${uniqueName(name)}.`;
  const topic = topicName(topicPrefix, TOPIC_CATALOG.channelCommands.name);
  const dlq = topicName(topicPrefix, TOPIC_CATALOG.deadLetters.name);
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: name, logger });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics({ admin, names: [topic, dlq], partitions: PARTITIONS, replicationFactor: 1, logger });
  const producer = await createRecordProducer(kafka);
  const redis = createRedis({ url: config.redisUrl, logger, name: `${name}-test` });
  return {
    logger,
    db,
    kafka,
    admin,
    producer,
    codec: loadCodec<ChannelCommandRecord>(TOPIC_CATALOG.channelCommands.schema),
    topicPrefix,
    topic,
    dlq,
    group: `${topicPrefix}channel-actors`,
    redisKeyPrefix: `${uniqueName('rt')}:`,
    redis,
    productId,
    namespaces: createPostgresNamespaceRepository(db),
    id: (channel) => ({ productId, environment: 'development', channel }),
    async close() {
      await admin.deleteTopics({ topics: [topic, dlq] }).catch(() => undefined);
      await producer.disconnect();
      await admin.disconnect();
      await closeRedis(redis);
      await db.destroy();
    },
  };
}

export const RETAINING: NamespacePolicy = {
  presence: true,
  clientEvents: false,
  historyWindowSeconds: 3600,
  archiveDays: 0,
};

/** Publishes `data` objects to one channel, in order, `perSend` records per produce call. */
export async function publishInOrder(
  f: RealtimeFixture,
  id: ChannelId,
  datas: unknown[],
  opts: { perSend?: number; pauseMs?: number; producer?: RecordProducer } = {},
): Promise<string[]> {
  const perSend = opts.perSend ?? 10;
  const ids: string[] = [];
  for (let i = 0; i < datas.length; i += perSend) {
    if (opts.pauseMs) await sleep(opts.pauseMs);
    const records = datas.slice(i, i + perSend).map((data) => {
      const messageId = newId();
      ids.push(messageId);
      return {
        key: channelCommandKey(id),
        value: publishCommandRecord({
          id,
          commandId: newId(),
          messageId,
          data: { json: JSON.stringify(data) },
          issuedAtMs: Date.now(),
        }),
      };
    });
    await (opts.producer ?? f.producer).send(f.topic, f.codec, records);
  }
  return ids;
}

/** A channel actor host in this process; resolves once it owns every partition. */
export async function startInProcessHost(f: RealtimeFixture) {
  const producer = await createRecordProducer(f.kafka);
  let assigned: number[] = [];
  const host = createActorHost<ChannelCommandRecord>({
    kafka: f.kafka,
    groupId: f.group,
    topic: f.topic,
    codec: f.codec,
    kind: createChannelActorKind({
      db: f.db,
      redis: f.redis,
      namespaces: f.namespaces,
      logger: f.logger,
      keyPrefix: f.redisKeyPrefix,
      policyCacheTtlMs: 200,
    }),
    deadLetters: createKafkaDeadLetterSink(producer, f.dlq, loadCodec<DeadLetter>('dead-letter')),
    logger: f.logger,
    registry: new Registry(),
    sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 1_000,
    maxWaitTimeMs: 200,
    onAssignment: (p) => {
      assigned = p;
    },
  });
  await host.start();
  await waitFor('the in-process host to own every partition', () => assigned.length === PARTITIONS, 60_000);
  return {
    async stop() {
      await host.stop();
      await producer.disconnect();
    },
  };
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

export async function topOffset(f: RealtimeFixture, id: ChannelId): Promise<number> {
  const row = (await f
    .db('channel_state')
    .where({ product_id: id.productId, environment: id.environment, channel: id.channel })
    .first('top_offset')) as { top_offset: string } | undefined;
  return Number(row?.top_offset ?? 0);
}

export interface Subscription {
  /** Parsed messages by pub/sub channel, in arrival order. */
  messages: Map<string, Array<Record<string, unknown>>>;
  on(id: ChannelId): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** A gateway stand-in: subscribes to channels' fan-out and to every presence result. */
export async function subscribe(f: RealtimeFixture, ids: ChannelId[]): Promise<Subscription> {
  const sub = createRedis({ url: config.redisUrl, logger: f.logger, name: 'rt-test-subscriber' });
  const messages = new Map<string, Array<Record<string, unknown>>>();
  const push = (channel: string, text: string) => {
    const list = messages.get(channel) ?? [];
    list.push(JSON.parse(text) as Record<string, unknown>);
    messages.set(channel, list);
  };
  sub.on('message', push);
  sub.on('pmessage', (_pattern: string, channel: string, text: string) => push(channel, text));
  if (ids.length > 0) await sub.subscribe(...ids.map((id) => fanOutChannel(f.redisKeyPrefix, id)));
  await sub.psubscribe(presenceResultPattern(f.redisKeyPrefix));
  return {
    messages,
    on: (id) => messages.get(fanOutChannel(f.redisKeyPrefix, id)) ?? [],
    close: () => closeRedis(sub),
  };
}
