// A partition actor host in its own process, so tests can SIGKILL it for real. Configuration
// arrives in the environment; progress goes to stdout as JSON lines.

import { createLogger, loadConfig } from '@lattice/core';
import {
  createActorHost,
  createCodec,
  createKafka,
  createKafkaDeadLetterSink,
  createRecordProducer,
  type DeadLetter,
  loadCodec,
} from '@lattice/kafka';
import knex from 'knex';
import { Registry } from 'prom-client';
import { reporter, runHost } from '../../support/host-process.ts';
import { createLedgerKind, LEDGER_SCHEMA, type LedgerCommand } from './ledger-actor.ts';

const env = process.env;
const config = loadConfig(env);
const hostName = env.LEDGER_HOST ?? `host-${process.pid}`;
const logger = createLogger({ name: hostName, level: config.logLevel });
const db = knex({ client: 'pg', connection: config.databaseUrl, pool: { min: 0, max: 8 } });
const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: hostName, logger });
const producer = await createRecordProducer(kafka);
const say = reporter(hostName);

const host = createActorHost<LedgerCommand>({
  kafka,
  groupId: env.LEDGER_GROUP!,
  topic: env.LEDGER_TOPIC!,
  codec: createCodec<LedgerCommand>([LEDGER_SCHEMA]),
  kind: createLedgerKind({
    db,
    topic: env.LEDGER_TOPIC!,
    host: hostName,
    delayMs: Number(env.LEDGER_DELAY_MS ?? 0),
    ...(env.LEDGER_FAIL_KEY
      ? { failKey: env.LEDGER_FAIL_KEY, failUntilMs: Number(env.LEDGER_FAIL_UNTIL_MS) }
      : {}),
  }),
  deadLetters: createKafkaDeadLetterSink(
    producer,
    env.LEDGER_DLQ_TOPIC!,
    loadCodec<DeadLetter>('dead-letter'),
  ),
  logger,
  registry: new Registry(),
  sessionTimeoutMs: Number(env.LEDGER_SESSION_MS ?? 10_000),
  heartbeatIntervalMs: 1_000,
  maxWaitTimeMs: 500,
  onAssignment: (partitions) => say({ event: 'assigned', partitions }),
  ...(env.LEDGER_COMMIT_INTERVAL_MS ? { commitIntervalMs: Number(env.LEDGER_COMMIT_INTERVAL_MS) } : {}),
});

await runHost(host, say, async () => {
  await producer.disconnect();
  await db.destroy();
});
