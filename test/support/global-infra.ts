// Mocha global fixture of the integration suite (.mocharc.json "require").
//
// Default: make sure local Kafka, Redis and PostgreSQL answer (starting what is missing with
// @lattice/infra) and that the test database exists; at the end stop only what was started
// here. LATTICE_TEST_KEEP_INFRA=1 leaves it running for the next run.
//
// LATTICE_TEST_INFRA=containers: PostgreSQL, Redis and Kafka (KRaft) in throwaway containers.
// They start while this module is imported, before mocha loads the spec files, because specs
// read their configuration (DATABASE_URL, REDIS_URL, KAFKA_BROKERS) at load time and mocha
// runs mochaGlobalSetup only after loading them.
import { createLogger, loadConfig, parseSecretKeys } from '@lattice/core';
import { TEST_DATABASE, testConfig } from '@lattice/core/testing';
import { ensureInfra, type ServiceName, stopInfra } from '@lattice/infra';
import { createDb } from '@lattice/store';
import { dropForeignSeals } from './foreign-seals.ts';

interface Stoppable {
  stop(): Promise<unknown>;
}

const logger = createLogger({ name: 'test-infra', level: loadConfig(process.env).logLevel });
const useContainers = process.env.LATTICE_TEST_INFRA === 'containers';
const keepInfra = process.env.LATTICE_TEST_KEEP_INFRA === '1';

let startedHere: ServiceName[] = [];
let containers: Stoppable[] = [];

/** Images matching infra/docker-compose.yml (Confluent 7.9 is Apache Kafka 3.9). */
async function startContainers(): Promise<Stoppable[]> {
  const [{ PostgreSqlContainer }, { RedisContainer }, { KafkaContainer }] = await Promise.all([
    import('@testcontainers/postgresql'),
    import('@testcontainers/redis'),
    import('@testcontainers/kafka'),
  ]);
  logger.info('starting PostgreSQL, Redis and Kafka containers');
  const startedMs = Date.now();
  const started: Stoppable[] = [];
  // Each container is remembered as soon as it runs, so a failure of another still stops it.
  const track = <T extends Stoppable>(c: T): T => {
    started.push(c);
    return c;
  };
  try {
    const [pg, redis, kafka] = await Promise.all([
      new PostgreSqlContainer('postgres:16')
        .withDatabase(TEST_DATABASE)
        .withUsername('postgres')
        .withPassword('postgres')
        .start()
        .then(track),
      new RedisContainer('redis:7').start().then(track),
      new KafkaContainer('confluentinc/cp-kafka:7.9.0')
        .withKraft()
        .withEnvironment({
          KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
          KAFKA_NUM_PARTITIONS: '12',
          KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        })
        .start()
        .then(track),
    ]);
    process.env.DATABASE_URL = pg.getConnectionUri();
    process.env.REDIS_URL = redis.getConnectionUrl();
    process.env.KAFKA_BROKERS = `${kafka.getHost()}:${kafka.getMappedPort(9093)}`;
    logger.info(
      { elapsedMs: Date.now() - startedMs, kafka: process.env.KAFKA_BROKERS, redis: process.env.REDIS_URL },
      'containers ready',
    );
    return started;
  } catch (err) {
    await Promise.allSettled(started.map((c) => c.stop()));
    throw err;
  }
}

// A failure here is kept for mochaGlobalSetup to throw: thrown while importing, it would be
// masked by mocha's require/import fallback and reported as a transform error.
let containerFailure: unknown;
if (useContainers) {
  containers = await startContainers().catch((err: unknown) => {
    containerFailure = err;
    return [];
  });
}

export async function mochaGlobalSetup(): Promise<void> {
  if (useContainers) {
    if (containerFailure) throw containerFailure;
    return;
  }
  const result = await ensureInfra({
    config: testConfig(),
    logger,
    databases: [TEST_DATABASE],
    searchPath: process.env.PATH ?? '',
  });
  startedHere = result.started;
  await dropForeignSealsOfTestDatabase();
}

/** What another keyring sealed in a kept test database would stop every role from starting. */
async function dropForeignSealsOfTestDatabase(): Promise<void> {
  const config = testConfig();
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  try {
    await dropForeignSeals(db, parseSecretKeys(config.secretKeys), logger);
  } finally {
    await db.destroy();
  }
}

export async function mochaGlobalTeardown(): Promise<void> {
  if (useContainers) {
    await Promise.allSettled(containers.map((c) => c.stop()));
    containers = [];
    return;
  }
  if (keepInfra || startedHere.length === 0) return;
  await stopInfra({ logger, only: startedHere });
  startedHere = [];
}
