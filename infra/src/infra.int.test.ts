// Against the real services: reuse is a no-op, the broker really carries messages, databases
// exist, and the start/stop paths work for real on free ports in a throwaway cache folder
// (leaving the shared servers alone).
import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { isListening } from './address.ts';
import { ensureInfra, infraPaths, infraStatus, kafkaAnswers, stopInfra } from './index.ts';
import { databaseUrlFor, ensureDatabase, postgresAnswers } from './postgres.ts';
import { redisAnswers } from './redis.ts';

const config = testConfig();
const logger = createLogger({ name: 'infra-int-test', level: config.logLevel });

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Two consecutive free ports: a broker's own plus its controller's. */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port < 65535 && !(await isListening({ host: '127.0.0.1', port: port + 1 }, 200))) return port;
  }
}

async function tempCache(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `lattice-infra-${label}-`));
  await chmod(dir, 0o755); // the postgres user must be able to reach its data dir inside
  return dir;
}

describe('infra (real Kafka, Redis, PostgreSQL)', function () {
  this.timeout(180_000);

  it('reuses what is running: a second ensureInfra starts nothing', async () => {
    const result = await ensureInfra({ config, logger, databases: ['lattice_test'] });
    expect(result.started).to.deep.equal([]);
    expect([...result.reused].sort()).to.deep.equal(['kafka', 'postgres', 'redis']);
    expect(result.databasesCreated).to.deep.equal([]);
    const status = await infraStatus(config);
    expect(status.map((s) => [s.name, s.answering])).to.deep.equal([
      ['kafka', true],
      ['postgres', true],
      ['redis', true],
    ]);
  });

  it('the broker creates a topic and round-trips a message', async () => {
    const kafka = new Kafka({
      clientId: 'infra-int-test',
      brokers: config.kafkaBrokers,
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    const producer = kafka.producer();
    const consumer = kafka.consumer({ groupId: uniqueName('infra-group') });
    const topic = uniqueName('infra-roundtrip');
    await admin.connect();
    try {
      expect(
        await admin.createTopics({
          topics: [{ topic, numPartitions: 3, replicationFactor: 1 }],
          // A freshly started KRaft broker briefly answers "unknown topic" after creating one,
          // which kafkajs's own leader wait does not retry; the producer below retries it.
          waitForLeaders: false,
        }),
      ).to.equal(true);
      await producer.connect();
      await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: 'hello lattice' }] });
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const received = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no message within 30s')), 30_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            clearTimeout(timer);
            resolve(`${message.key?.toString()}=${message.value?.toString()}`);
          },
        });
      });
      expect(received).to.equal('k=hello lattice');
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    }
  });

  it('the test database exists, and concurrent ensureDatabase calls create a new one once', async () => {
    expect(await ensureDatabase(config.databaseUrl)).to.equal(false);
    const name = uniqueName('infra_db').replaceAll('-', '_');
    const url = databaseUrlFor(config.databaseUrl, name);
    const created = await Promise.all([ensureDatabase(url), ensureDatabase(url), ensureDatabase(url)]);
    try {
      expect(created.filter(Boolean)).to.have.length(1);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
      await client.end();
      expect(rows[0]?.db).to.equal(name);
    } finally {
      const admin = new pg.Client({ connectionString: databaseUrlFor(config.databaseUrl, 'postgres') });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.end();
    }
  });

  it('starts private PostgreSQL and Redis when none answers, and stops only those', async () => {
    const cacheDir = await tempCache('pg-redis');
    const local = {
      ...config,
      databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/lattice_test`,
      redisUrl: `redis://127.0.0.1:${await freePort()}`,
    };
    try {
      const result = await ensureInfra({ config: local, logger, cacheDir });
      expect([...result.started].sort()).to.deep.equal(['postgres', 'redis']);
      expect(result.reused).to.deep.equal(['kafka']); // the shared broker, not ours to stop
      expect(result.databasesCreated).to.deep.equal(['lattice_test']);
      expect(await postgresAnswers(local.databaseUrl)).to.equal(true);
      expect(await redisAnswers(local.redisUrl)).to.equal(true);

      const again = await ensureInfra({ config: local, logger, cacheDir });
      expect(again.started).to.deep.equal([]);

      const stopped = await stopInfra({ logger, cacheDir });
      expect([...stopped.stopped].sort()).to.deep.equal(['postgres', 'redis']);
      expect(await postgresAnswers(local.databaseUrl)).to.equal(false);
      expect(await redisAnswers(local.redisUrl)).to.equal(false);
      expect(await kafkaAnswers(config.kafkaBrokers)).to.equal(true);
      expect(await postgresAnswers(config.databaseUrl)).to.equal(true);
    } finally {
      await stopInfra({ logger, cacheDir }).catch(() => undefined);
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it('starts a Kafka broker when none answers, waits until it is ready, and stops it', async () => {
    const cacheDir = await tempCache('kafka');
    const port = await freePortPair();
    const brokers = [`127.0.0.1:${port}`];
    // Share the jars already fetched for the main broker rather than fetching them again.
    await mkdir(infraPaths(cacheDir).kafka.dir, { recursive: true });
    await symlink(infraPaths().kafka.libsDir, infraPaths(cacheDir).kafka.libsDir);
    try {
      const startedMs = Date.now();
      const result = await ensureInfra({
        config: { ...config, kafkaBrokers: brokers },
        logger,
        cacheDir,
        kafkaJavaOptions: ['-Xms128m', '-Xmx384m'],
      });
      logger.info({ readyMs: Date.now() - startedMs }, 'second broker ready');
      expect(result.started).to.deep.equal(['kafka']);
      expect(await kafkaAnswers(brokers)).to.equal(true);
      const status = await infraStatus({ ...config, kafkaBrokers: brokers }, { cacheDir });
      expect(status[0]?.managedPid).to.be.a('number');

      expect((await stopInfra({ logger, cacheDir })).stopped).to.deep.equal(['kafka']);
      expect(await isListening({ host: '127.0.0.1', port })).to.equal(false);
      expect(await kafkaAnswers(config.kafkaBrokers)).to.equal(true); // the shared one is untouched
    } finally {
      await stopInfra({ logger, cacheDir }).catch(() => undefined);
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});
