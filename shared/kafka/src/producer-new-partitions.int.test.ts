// A record placed on a partition added after the producer last read the topic's metadata reaches
// Kafka (real broker). kafkajs on its own drops such a record silently and resolves the send, so
// producer.ts resends what the answer does not list once the metadata is refreshed.
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import { createKafka } from './client.ts';
import { createCodec } from './codec.ts';
import { partitionOfKey } from './key-partition.ts';
import type { PartitionPlacement } from './partition-placement.ts';
import { createRecordProducer } from './producer.ts';
import { ensureTopics } from './topics.ts';

describe('record producer and partitions added while it runs (real Kafka)', function () {
  this.timeout(60_000);
  const config = testConfig();
  const logger = createLogger({ name: 'new-partitions-test', level: 'silent' });
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'new-partitions-test', logger });
  const admin = kafka.admin();
  const topic = uniqueName('new-partitions');
  const codec = createCodec<{ n: number }>([
    { type: 'record', name: 'N', fields: [{ name: 'n', type: 'int' }] },
  ]);

  before(async () => {
    await admin.connect();
    await ensureTopics({ admin, names: [topic], partitions: 2, replicationFactor: 1, logger });
  });
  after(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  });

  it('delivers records placed on the new partitions, none lost, each once', async () => {
    let partitions = 2;
    const placement: PartitionPlacement = {
      acquire: async () => ({ partitions, release() {} }),
      planOf: () => null,
      onPlanChange() {},
      close: async () => {},
    };
    const producer = await createRecordProducer(kafka, { placement });
    // The producer reads the topic's metadata (2 partitions) with its first send.
    await producer.send(topic, codec, [{ key: 'warm-up', value: { n: -1 } }]);

    await admin.createPartitions({ topicPartitions: [{ topic, count: 4 }] });
    partitions = 4;
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
    const onNew = keys.filter((k) => partitionOfKey(topic, k, 4) >= 2);
    expect(onNew.length, 'some keys go to the new partitions').to.be.greaterThan(5);
    await producer.send(
      topic,
      codec,
      keys.map((key, n) => ({ key, value: { n } })),
    );
    await producer.disconnect();

    const offsets = await admin.fetchTopicOffsets(topic);
    const high = new Map(offsets.map((o) => [o.partition, Number(o.high)]));
    for (let p = 0; p < 4; p++) {
      const expected =
        keys.filter((k) => partitionOfKey(topic, k, 4) === p).length +
        (p === partitionOfKey(topic, 'warm-up', 2) ? 1 : 0);
      expect(high.get(p), `records on partition ${p}`).to.equal(expected);
    }
  });
});
