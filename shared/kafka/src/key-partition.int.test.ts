// partitionOfKey names the partition the platform's producer really puts a key on (real Kafka):
// the webhook endpoint actors rely on it to find the endpoints they own after a rebalance.
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import { createKafka } from './client.ts';
import { createCodec } from './codec.ts';
import { partitionOfKey } from './key-partition.ts';
import { createRecordProducer } from './producer.ts';
import { ensureTopics } from './topics.ts';

describe('partitionOfKey (real Kafka)', function () {
  this.timeout(60_000);
  const config = testConfig();
  const logger = createLogger({ name: 'key-partition-test', level: 'silent' });
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'key-partition-test', logger });
  const admin = kafka.admin();
  const topic = uniqueName('key-partition');

  before(async () => {
    await admin.connect();
    await ensureTopics({ admin, names: [topic], partitions: 5, replicationFactor: 1, logger });
  });
  after(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  });

  it('matches where the record producer places each key', async () => {
    const codec = createCodec<{ n: number }>([
      { type: 'record', name: 'N', fields: [{ name: 'n', type: 'int' }] },
    ]);
    const producer = await createRecordProducer(kafka);
    const keys = Array.from({ length: 40 }, (_, i) => `endpoint-${i}-${uniqueName('k')}`);
    await producer.send(
      topic,
      codec,
      keys.map((key, n) => ({ key, value: { n } })),
    );
    await producer.disconnect();
    const placed = new Map<string, number>();
    const consumer = kafka.consumer({ groupId: uniqueName('key-partition-group') });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          placed.set(message.key!.toString(), partition);
          if (placed.size === keys.length) resolve();
        },
      });
    });
    await consumer.disconnect();
    expect(new Set(placed.values()).size, 'keys spread over several partitions').to.be.greaterThan(2);
    for (const key of keys) expect(partitionOfKey(topic, key, 5), key).to.equal(placed.get(key));
  });
});
