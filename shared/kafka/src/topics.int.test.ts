import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import { ConfigResourceTypes } from 'kafkajs';
import { createKafka } from './client.ts';
import { ensureTopics } from './topics.ts';

describe('ensureTopics (real Kafka)', () => {
  const config = testConfig();
  const logger = createLogger({ name: 'topics-test', level: 'silent' });
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'topics-test', logger });
  const admin = kafka.admin();
  const names = [uniqueName('topics-a'), uniqueName('topics-b')];
  const followed = uniqueName('topics-cluster');
  const kept = uniqueName('topics-retention');

  before(() => admin.connect());
  after(async () => {
    await admin.deleteTopics({ topics: [...names, followed, kept] }).catch(() => {});
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

  it("follows the cluster's size: on the one local broker, 1 copy and 1 in sync", async () => {
    const brokers = (await admin.describeCluster()).brokers.length;
    const expected =
      brokers >= 3 ? { copies: 3, inSync: '2' } : { copies: Math.min(brokers, 3), inSync: '1' };
    await ensureTopics({ admin, names: [followed], partitions: 2, replicationFactor: 'cluster', logger });
    const meta = await admin.fetchTopicMetadata({ topics: [followed] });
    expect(meta.topics[0]!.partitions.map((p) => p.replicas.length)).to.deep.equal([
      expected.copies,
      expected.copies,
    ]);
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: followed, configNames: ['min.insync.replicas'] }],
    });
    expect(resources[0]!.configEntries[0]!.configValue).to.equal(expected.inSync);
  });

  it('holds a topic configuration: at creation, and on an existing topic, keeping its other entries', async () => {
    const configOf = async (name: string) => {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name, configNames: ['retention.ms', 'min.insync.replicas'] },
        ],
      });
      return Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
    };
    const base = { admin, names: [kept], partitions: 1, replicationFactor: 1, logger };
    await ensureTopics({ ...base, topicConfigs: { [kept]: { 'retention.ms': String(14 * 86_400_000) } } });
    expect(await configOf(kept)).to.deep.equal({ 'retention.ms': '1209600000', 'min.insync.replicas': '1' });
    // A later start with another retention sets it, and leaves min.insync.replicas as it was.
    await ensureTopics({ ...base, topicConfigs: { [kept]: { 'retention.ms': String(86_400_000) } } });
    expect(await configOf(kept)).to.deep.equal({ 'retention.ms': '86400000', 'min.insync.replicas': '1' });
  });
});
