// A channel actor host in its own process, so tests can SIGKILL it for real. Configuration
// arrives in the environment; progress goes to stdout as JSON lines (as the ledger host does).
import { createLogger, loadConfig } from '@lattice/core';
import {
  createActorHost,
  createKafka,
  createKafkaDeadLetterSink,
  createRecordProducer,
  type DeadLetter,
  loadCodec,
  TOPIC_CATALOG,
} from '@lattice/kafka';
import {
  type ChannelCommandRecord,
  createChannelActorKind,
  createPostgresNamespaceRepository,
} from '@lattice/realtime';
import { createRedis } from '@lattice/redis';
import { createDb } from '@lattice/store';
import { Registry } from 'prom-client';
import { reporter, runHost } from '../../support/host-process.ts';

const env = process.env;
const config = loadConfig(env);
const hostName = env.RT_HOST ?? `channel-host-${process.pid}`;
const logger = createLogger({ name: hostName, level: config.logLevel });
const db = createDb({ databaseUrl: config.databaseUrl, poolMax: 16 });
const redis = createRedis({ url: config.redisUrl, logger, name: hostName });
const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: hostName, logger });
const producer = await createRecordProducer(kafka);
const say = reporter(hostName);

const host = createActorHost<ChannelCommandRecord>({
  kafka,
  groupId: env.RT_GROUP!,
  topic: env.RT_TOPIC!,
  codec: loadCodec<ChannelCommandRecord>(TOPIC_CATALOG.channelCommands.schema),
  kind: createChannelActorKind({
    db,
    redis,
    namespaces: createPostgresNamespaceRepository(db),
    logger,
    keyPrefix: config.redisKeyPrefix,
  }),
  deadLetters: createKafkaDeadLetterSink(producer, env.RT_DLQ_TOPIC!, loadCodec<DeadLetter>('dead-letter')),
  logger,
  registry: new Registry(),
  sessionTimeoutMs: 10_000,
  heartbeatIntervalMs: 1_000,
  maxWaitTimeMs: 500,
  onAssignment: (partitions) => say({ event: 'assigned', partitions }),
});

await runHost(host, say, async () => {
  await producer.disconnect();
  redis.disconnect();
  await db.destroy();
});
