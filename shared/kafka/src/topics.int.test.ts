import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import { createKafka } from './client.ts';
import { ensureTopics } from './topics.ts';

describe('ensureTopics (real Kafka)', () => {
  const config = testConfig();
  const logger = createLogger({ name: 'topics-test', level: 'silent' });
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'topics-test', logger });
  const admin = kafka.admin();
  const names = [uniqueName('topics-a'), uniqueName('topics-b')];

  before(() => admin.connect());
  after(async () => {
    await admin.deleteTopics({ topics: names }).catch(() => {});
    await admin.disconnect();
  });

  it('creates missing topics with the configured partitions, idempotently and concurrently', async () => {
    const opts = { admin, names, partitions: 12, replicationFactor: 1, logger };
    const [a, b] = await Promise.all([ensureTopics(opts), ensureTopics(opts)]);
    expect([...a.created, ...b.created].sort()).to.deep.equal([...names].sort());
    expect((await ensureTopics(opts)).created).to.deep.equal([]);
    const meta = await admin.fetchTopicMetadata({ topics: names });
    expect(meta.topics.map((t) => t.partitions.length)).to.deep.equal([12, 12]);
  });
});
