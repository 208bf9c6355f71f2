// Records acknowledged after a send whose answers were lost are really in Kafka (real broker).
// A broker that appends a produce request and dies before answering leaves kafkajs with a failed
// send whose records landed; kafkajs takes their sequence numbers back, and the next records under
// the same producer id would be taken by the broker for a retry of the landed ones: answered with
// success and dropped (the acknowledged publish the broker-loss test once found missing). Here the
// connection is cut as each produce answer arrives, for every attempt of one send, so the send
// fails although its record landed; the next send must land too.
import net from 'node:net';
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import { createKafka } from './client.ts';
import { createCodec } from './codec.ts';
import { createRecordProducer } from './producer.ts';
import { stopIdleRequestQueuePolling } from './request-queue-fix.ts';
import { ensureTopics } from './topics.ts';

/** The Produce request's api key in the Kafka protocol (after the 4-byte size prefix). */
const PRODUCE_API_KEY = 0;

/**
 * Sockets that, while `cutting`, let a produce request through to the broker and cut the
 * connection when its answer arrives: the request is appended, the client never hears so.
 */
function answerCuttingSockets() {
  const state = { cutting: false, cut: 0 };
  const socketFactory = ({
    host,
    port,
    onConnect,
  }: {
    host: string;
    port: number;
    onConnect: () => void;
  }) => {
    const socket = net.connect({ host, port }, onConnect);
    let produceInFlight = false;
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (
        state.cutting &&
        Buffer.isBuffer(chunk) &&
        chunk.length >= 6 &&
        chunk.readInt16BE(4) === PRODUCE_API_KEY
      )
        produceInFlight = true;
      return write(chunk, ...rest);
    }) as typeof socket.write;
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event === 'data' && produceInFlight) {
        produceInFlight = false;
        state.cut++;
        socket.destroy(new Error('connection cut before the produce answer'));
        return true;
      }
      return emit(event, ...args);
    }) as typeof socket.emit;
    return socket;
  };
  return { state, socketFactory };
}

describe('record producer after a send whose answers were lost (real Kafka)', function () {
  this.timeout(60_000);
  const config = testConfig();
  const logger = createLogger({ name: 'lost-answers-test', level: 'silent' });
  const admin = createKafka({ brokers: config.kafkaBrokers, clientId: 'lost-answers-test', logger }).admin();
  const topic = uniqueName('lost-answers');
  const codec = createCodec<{ n: number }>([
    { type: 'record', name: 'N', fields: [{ name: 'n', type: 'int' }] },
  ]);

  before(async () => {
    await admin.connect();
    await ensureTopics({ admin, names: [topic], partitions: 1, replicationFactor: 1, logger });
  });
  after(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  });

  it('lands the records of the next send: they go out under a new producer id', async () => {
    const sockets = answerCuttingSockets();
    stopIdleRequestQueuePolling(); // createKafka's fix: this client is made here for its sockets
    const kafka = new Kafka({
      clientId: 'lost-answers-test',
      brokers: config.kafkaBrokers,
      logLevel: logLevel.NOTHING,
      socketFactory: sockets.socketFactory,
    });
    // Three attempts, all cut: the send fails after about a second.
    const sendRetry = { initialRetryTime: 50, maxRetryTime: 200, retries: 2 };
    const producer = await createRecordProducer(kafka, { sendRetry });
    try {
      await producer.send(topic, codec, [{ key: 'k', value: { n: 1 } }]);
      sockets.state.cutting = true;
      const failed = await producer.send(topic, codec, [{ key: 'k', value: { n: 2 } }]).then(
        () => null,
        (err: Error) => err,
      );
      sockets.state.cutting = false;
      expect(failed, 'the send whose answers were cut').to.be.an('error');
      expect(sockets.state.cut, 'answers cut: one per attempt').to.equal(3);
      await producer.send(topic, codec, [{ key: 'k', value: { n: 3 } }]);
    } finally {
      await producer.disconnect();
    }
    // 1, the landed 2 (its retries recognised as duplicates), and 3.
    const [offsets] = await admin.fetchTopicOffsets(topic);
    expect(Number(offsets!.high), 'records in the topic').to.equal(3);
  });
});
