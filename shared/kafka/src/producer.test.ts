import { captureLogs, LEVEL, ManualScheduler } from '@lattice/core/testing';
import { expect } from 'chai';
import type { ICustomPartitioner, Message, ProducerConfig, ProducerRecord, RecordMetadata } from 'kafkajs';
import type { Codec } from './codec.ts';
import type { PartitionPlacement } from './partition-placement.ts';
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
 * answers each send with `answer(partitions placed, call number)`: the partitions it acknowledges
 * (or throws, as a send kafkajs gave up on). Producers are numbered from 1 in the order made.
 */
function fakeKafka(
  answer: (placed: number[], call: number) => number[] | Promise<number[]>,
  /** How often kafkajs tried the send of this call (it places the records again each time). */
  attemptsOf: (call: number) => number = () => 1,
) {
  const sends: Array<Array<{ key: string; partition: number }>> = [];
  /** The producer each send went through. */
  const sentBy: number[] = [];
  const disconnected: number[] = [];
  let made = 0;
  const factory: ProducerFactory = {
    producer(config?: ProducerConfig) {
      if (!config?.createPartitioner) throw new Error('the record producer must bring its partitioner');
      if (!config.idempotent || config.maxInFlightRequests !== 1)
        throw new Error('the record producer must be idempotent with one request in flight');
      const partitioner = (config.createPartitioner as ICustomPartitioner)();
      const number = ++made;
      return {
        connect: async () => undefined,
        disconnect: async () => {
          disconnected.push(number);
        },
        async send(record: ProducerRecord): Promise<RecordMetadata[]> {
          const call = sends.length + 1;
          for (let retry = 1; retry < attemptsOf(call); retry++)
            for (const message of record.messages)
              partitioner({ topic: record.topic, partitionMetadata, message });
          const placed = record.messages.map((message: Message) =>
            partitioner({ topic: record.topic, partitionMetadata, message }),
          );
          sends.push(record.messages.map((m, i) => ({ key: String(m.key), partition: placed[i]! })));
          sentBy.push(number);
          return (await answer(placed, sends.length)).map((partition) => ({
            topicName: record.topic,
            partition,
            errorCode: 0,
          }));
        },
      } as unknown as ReturnType<ProducerFactory['producer']>;
    },
  };
  return { factory, sends, sentBy, disconnected, made: () => made };
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

describe('record producer: a failed send retires its producer id', () => {
  const all = (placed: number[]) => [...new Set(placed)];

  it('sends the next records through a new producer once a send failed, and disconnects the old one', async () => {
    // kafkajs took the failed request's sequence numbers back; under the same producer id the
    // next records would reuse them and a broker holding the landed request would drop them.
    const { factory, sentBy, disconnected, made } = fakeKafka((placed, call) => {
      if (call === 2) throw new Error('KafkaJSNumberOfRetriesExceeded: connection closed');
      return all(placed);
    });
    const producer = await createRecordProducer(factory, { logger: captureLogs().logger });
    await producer.send('t', text, records.slice(0, 3));
    const failed = await producer.send('t', text, records.slice(3, 6)).then(
      () => null,
      (err: Error) => err,
    );
    expect(failed?.message).to.match(/NumberOfRetriesExceeded/);
    await producer.send('t', text, records.slice(6, 9));
    await producer.send('t', text, records.slice(9));
    expect(sentBy).to.deep.equal([1, 1, 2, 2]);
    expect(made()).to.equal(2);
    expect(disconnected).to.deep.equal([1]);
  });

  it('retires it too when partitions stay unacknowledged', async () => {
    const { factory, sentBy } = fakeKafka((placed, call) => (call <= 4 ? all(placed).slice(1) : all(placed)));
    const scheduler = new ManualScheduler(0);
    const producer = await createRecordProducer(factory, { scheduler });
    const sending = producer.send('t', text, records).then(
      () => null,
      (err: Error) => err,
    );
    await scheduler.advanceAsync(0);
    await scheduler.advanceAsync(PRODUCER_METADATA_MAX_AGE_MS);
    await scheduler.advanceAsync(PRODUCER_METADATA_MAX_AGE_MS);
    expect((await sending)?.message).to.match(/were not acknowledged/);
    await producer.send('t', text, records);
    expect(sentBy).to.deep.equal([1, 1, 1, 1, 2]);
  });

  it('retires it after a send kafkajs had to retry, though the send succeeded', async () => {
    // A retry can start while another broker's request of the same attempt is in flight; that
    // request's failure later takes back numbers a moved partition has used since.
    const { factory, sentBy } = fakeKafka(all, (call) => (call === 2 ? 3 : 1));
    const producer = await createRecordProducer(factory);
    await producer.send('t', text, records);
    await producer.send('t', text, records);
    await producer.send('t', text, records);
    await producer.send('t', text, records);
    expect(sentBy).to.deep.equal([1, 1, 2, 2]);
  });

  it('resends unacknowledged records through a new producer when the send that left them out was retried', async () => {
    // kafkajs#1303 happens under a retry: the numbers of the records left out may be stale.
    const { factory, sends, sentBy } = fakeKafka(
      (placed, call) => (call === 1 ? all(placed).slice(1) : all(placed)),
      (call) => (call === 1 ? 2 : 1),
    );
    const producer = await createRecordProducer(factory);
    await producer.send('t', text, records);
    expect(sentBy).to.deep.equal([1, 2]);
    expect(sends[1]!.length).to.be.lessThan(records.length);
  });

  it('refuses sends once disconnected, after the queued ones have gone', async () => {
    const answers: Array<() => void> = [];
    const { factory, sends, disconnected } = fakeKafka(
      (placed) => new Promise<number[]>((resolve) => answers.push(() => resolve(all(placed)))),
    );
    const producer = await createRecordProducer(factory);
    const first = producer.send('t', text, records.slice(0, 6));
    const second = producer.send('t', text, records.slice(6));
    await new Promise((r) => setImmediate(r)); // both have their slots and are queued
    const closing = producer.disconnect();
    const late = await producer.send('t', text, records).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(late).to.equal('the record producer is disconnected');
    await new Promise((r) => setImmediate(r));
    answers.shift()!();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(disconnected, 'not while a queued send waits').to.deep.equal([]);
    answers.shift()!();
    await second;
    await closing;
    expect(sends).to.have.length(2);
    expect(disconnected).to.deep.equal([1]);
  });

  it('refuses a send that was still waiting for its partition slot when disconnect() ran', async () => {
    // A draining partition plan holds acquire(); the send must not start a producer afterwards.
    let letGo: () => void = () => undefined;
    const placement: PartitionPlacement = {
      acquire: () =>
        new Promise((resolve) => {
          letGo = () => resolve({ partitions: null, release() {} });
        }),
      planOf: () => null,
      onPlanChange() {},
      close: async () => {},
    };
    const { factory, sends, made } = fakeKafka(all);
    const producer = await createRecordProducer(factory, { placement });
    const waiting = producer.send('t', text, records).then(
      () => 'sent',
      (err: Error) => err.message,
    );
    await producer.disconnect();
    letGo();
    expect(await waiting).to.equal('the record producer is disconnected');
    expect(sends).to.have.length(0);
    expect(made()).to.equal(1);
  });

  it('disconnects a producer whose connect failed, and tries a new one at the next send', async () => {
    // connect() opens the cluster's connections before asking for a producer id: a failure of
    // the second step must not leave the first open.
    let failConnect = false;
    const {
      factory: fake,
      sentBy,
      disconnected,
    } = fakeKafka((placed, call) => {
      if (call === 1) throw new Error('KafkaJSNumberOfRetriesExceeded');
      return all(placed);
    });
    const factory: ProducerFactory = {
      producer(config) {
        const inner = fake.producer(config);
        const connect = async () => {
          if (failConnect) throw new Error('InitProducerId failed');
        };
        return Object.assign(inner, { connect });
      },
    };
    const producer = await createRecordProducer(factory);
    const outcome = (p: Promise<void>) =>
      p.then(
        () => 'sent',
        (err: Error) => err.message,
      );
    expect(await outcome(producer.send('t', text, records))).to.match(/NumberOfRetriesExceeded/);
    failConnect = true;
    expect(await outcome(producer.send('t', text, records))).to.equal('InitProducerId failed');
    expect(disconnected, 'the producer whose connect failed').to.deep.equal([2]);
    failConnect = false;
    expect(await outcome(producer.send('t', text, records))).to.equal('sent');
    expect(sentBy, 'the first producer, then the third').to.deep.equal([1, 3]);
    await new Promise((r) => setImmediate(r));
    expect(disconnected, 'and the retired first one').to.deep.equal([2, 1]);
  });

  it('keeps the producer while sends succeed, including after a resend that was acknowledged', async () => {
    const { factory, sentBy, made } = fakeKafka((placed, call) =>
      call === 1 ? all(placed).slice(1) : all(placed),
    );
    const producer = await createRecordProducer(factory);
    await producer.send('t', text, records);
    await producer.send('t', text, records);
    expect(sentBy).to.deep.equal([1, 1, 1]);
    expect(made()).to.equal(1);
  });

  it('sends one at a time: a send reaches kafkajs only after the one before it settled', async () => {
    // A send in flight while kafkajs retries another could take the numbers the other gave back.
    const answers: Array<() => void> = [];
    const { factory, sends } = fakeKafka(
      (placed) => new Promise<number[]>((resolve) => answers.push(() => resolve(all(placed)))),
    );
    const producer = await createRecordProducer(factory);
    const first = producer.send('t', text, records.slice(0, 6));
    const second = producer.send('t', text, records.slice(6));
    await new Promise((r) => setImmediate(r));
    expect(sends).to.have.length(1);
    answers.shift()!();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(sends).to.have.length(2);
    answers.shift()!();
    await second;
    expect(sends[1]!.map((s) => s.key)).to.deep.equal(records.slice(6).map((r) => r.key));
  });
});
