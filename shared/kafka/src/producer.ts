// Producing records: acks from all in-sync replicas and the idempotent producer, so a 2xx
// "durably in Kafka" answer means what it says and the producer's own retries never duplicate
// or reorder a key. Retries are bounded (kafkajs warns about that): a send that still fails
// surfaces to the caller, whose retry may duplicate a record; consumers are idempotent for that.
import { type Kafka, Partitioners, type Producer } from 'kafkajs';
import type { Codec } from './codec.ts';
import { requestIdHeaders } from './record-headers.ts';

export interface OutgoingRecord<T> {
  key: string;
  value: T;
  /** The HTTP request the record is produced for: sent as the `lattice-request-id` header. */
  requestId?: string | undefined;
}

export interface RecordProducer {
  send<T>(topic: string, codec: Codec<T>, records: ReadonlyArray<OutgoingRecord<T>>): Promise<void>;
  disconnect(): Promise<void>;
}

export async function createRecordProducer(kafka: Kafka): Promise<RecordProducer> {
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    // murmur2 like the Java client, so every producer places a key on the same partition.
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  return {
    async send(topic, codec, records) {
      await producer.send({
        topic,
        acks: -1,
        messages: records.map((r) => ({
          key: r.key,
          value: codec.encode(r.value),
          headers: requestIdHeaders(r.requestId),
        })),
      });
    },
    disconnect: () => producer.disconnect(),
  };
}
