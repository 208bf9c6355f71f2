// Producing records: acks from all in-sync replicas and the idempotent producer, so a 2xx
// "durably in Kafka" answer means what it says and retries never duplicate or reorder a key.
import type { Kafka, Producer } from 'kafkajs';
import type { Codec } from './codec.ts';

export interface RecordProducer {
  send<T>(topic: string, codec: Codec<T>, records: Array<{ key: string; value: T }>): Promise<void>;
  disconnect(): Promise<void>;
}

export async function createRecordProducer(kafka: Kafka): Promise<RecordProducer> {
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  return {
    async send(topic, codec, records) {
      await producer.send({
        topic,
        acks: -1,
        messages: records.map((r) => ({ key: r.key, value: codec.encode(r.value) })),
      });
    },
    disconnect: () => producer.disconnect(),
  };
}
