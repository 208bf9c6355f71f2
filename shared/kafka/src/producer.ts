// Producing records: acks from all in-sync replicas and the idempotent producer, so a 2xx
// "durably in Kafka" answer means what it says and the producer's own retries never duplicate
// or reorder a key. Retries are bounded (kafkajs warns about that): a send that still fails
// surfaces to the caller, whose retry may duplicate a record; consumers are idempotent for that.
import { type Kafka, Partitioners, type Producer } from 'kafkajs';
import type { Codec } from './codec.ts';
import { partitionOfKey } from './key-partition.ts';
import { metadataPlacement, type PartitionPlacement } from './partition-placement.ts';

export interface RecordProducer {
  send<T>(topic: string, codec: Codec<T>, records: Array<{ key: string; value: T }>): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * `placement`: where keys go while topics are re-partitioned (partition-placement.ts); every role
 * that produces while the platform runs passes its shared one.
 */
export async function createRecordProducer(
  kafka: Kafka,
  placement: PartitionPlacement = metadataPlacement,
): Promise<RecordProducer> {
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
      const slot = await placement.acquire(topic);
      try {
        const count = slot.partitions;
        await producer.send({
          topic,
          acks: -1,
          messages: records.map((r) =>
            count === null
              ? { key: r.key, value: codec.encode(r.value) }
              : { key: r.key, value: codec.encode(r.value), partition: partitionOfKey(topic, r.key, count) },
          ),
        });
      } finally {
        slot.release();
      }
    },
    disconnect: () => producer.disconnect(),
  };
}
