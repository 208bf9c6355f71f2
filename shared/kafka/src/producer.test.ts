import { captureLogs, LEVEL, ManualScheduler } from '@lattice/core/testing';
import { expect } from 'chai';
import type { ICustomPartitioner, Message, ProducerConfig, ProducerRecord, RecordMetadata } from 'kafkajs';
import type { Codec } from './codec.ts';
import { createRecordProducer, PRODUCER_METADATA_MAX_AGE_MS, type ProducerFactory } from './producer.ts';

const text: Codec<string> = {
  encode: (v) => Buffer.from(v),
  decode: (b) => b.toString(),
} as Codec<string>;

const PARTITIONS = 4;
const partitionMetadata = Array.from({ length: PARTITIONS }, (_, partitionId) => ({
  partitionId,
  leader: partitionId % 2,
  partitionErrorCode: 0,
  replicas: [0, 1],
  isr: [0, 1],
}));

/**
 * A kafkajs stand-in: places each message with the producer's partitioner, as kafkajs does, and
 * answers each send with `answer(partitions placed, call number)`: the partitions it acknowledges.
 */
function fakeKafka(answer: (placed: number[], call: number) => number[]) {
  const sends: Array<Array<{ key: string; partition: number }>> = [];
  const factory: ProducerFactory = {
    producer(config?: ProducerConfig) {
      if (!config?.createPartitioner) throw new Error('the record producer must bring its partitioner');
      const partitioner = (config.createPartitioner as ICustomPartitioner)();
      return {
        connect: async () => undefined,
        disconnect: async () => undefined,
        async send(record: ProducerRecord): Promise<RecordMetadata[]> {
          const placed = record.messages.map((message: Message) =>
            partitioner({ topic: record.topic, partitionMetadata, message }),
          );
          sends.push(record.messages.map((m, i) => ({ key: String(m.key), partition: placed[i]! })));
          return answer(placed, sends.length).map((partition) => ({
            topicName: record.topic,
            partition,
            errorCode: 0,
          }));
        },
      } as unknown as ReturnType<ProducerFactory['producer']>;
    },
  };
  return { factory, sends };
}

const records = Array.from({ length: 12 }, (_, i) => ({ key: `channel-${i}`, value: `m${i}` }));

describe('record producer: acknowledged partitions', () => {
  it('resolves when every partition a record went to is acknowledged', async () => {
    const { factory, sends } = fakeKafka((placed) => [...new Set(placed)]);
    const producer = await createRecordProducer(factory);
    await producer.send('t', text, records);
    expect(sends).to.have.length(1);
  });

  it('sends again only the records of partitions the answer left out (kafkajs#1303)', async () => {
    // The first answer lacks one partition, as when a broker died under the send and its
    // partitions moved to one that had already answered.
    let lost = -1;
    const { factory, sends } = fakeKafka((placed, call) => {
      const partitions = [...new Set(placed)];
      if (call > 1) return partitions;
      lost = partitions[0]!;
      return partitions.slice(1);
    });
    const logs = captureLogs();
    const producer = await createRecordProducer(factory, { logger: logs.logger });
    await producer.send('t', text, records);
    expect(sends).to.have.length(2);
    expect(logs.at(LEVEL.warn).map((l) => l.partitions)).to.deep.equal([[lost]]);
    const again = sends[1]!;
    expect(again.length).to.be.greaterThan(0);
    expect(again.every((s) => s.partition === lost)).to.equal(true);
    expect(again.map((s) => s.key)).to.deep.equal(
      sends[0]!.filter((s) => s.partition === lost).map((s) => s.key),
    );
  });

  it('fails when a partition stays unacknowledged', async () => {
    const { factory, sends } = fakeKafka((placed) => [...new Set(placed)].slice(1));
    const scheduler = new ManualScheduler(0);
    const producer = await createRecordProducer(factory, { scheduler });
    let failure: Error | undefined;
    const sending = producer.send('t', text, records).catch((err: Error) => {
      failure = err;
    });
    // The first resend goes at once (a moved leader); later ones wait for a metadata refresh.
    await scheduler.advanceAsync(0);
    expect(sends).to.have.length(2);
    await scheduler.advanceAsync(PRODUCER_METADATA_MAX_AGE_MS);
    expect(sends).to.have.length(3);
    await scheduler.advanceAsync(PRODUCER_METADATA_MAX_AGE_MS);
    await sending;
    expect(failure?.message).to.match(/were not acknowledged/);
    expect(sends).to.have.length(4);
  });
});
