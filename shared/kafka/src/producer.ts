// Producing records: acks from all in-sync replicas and the idempotent producer, so a 2xx
// "durably in Kafka" answer means what it says and the producer's own retries never duplicate
// or reorder a key. Retries are bounded (kafkajs warns about that): a send that still fails
// surfaces to the caller, whose retry may duplicate a record; consumers are idempotent for that.
import { sleep } from '@lattice/core';
import { type Kafka, type Message, Partitioners, type Producer } from 'kafkajs';
import type { Codec } from './codec.ts';
import { partitionOfKey } from './key-partition.ts';
import { metadataPlacement, type PartitionPlacement } from './partition-placement.ts';
import { requestIdHeaders } from './record-headers.ts';

/**
 * How stale a producer's topic metadata may get. kafkajs silently drops a record sent to a
 * partition its metadata does not list yet (Cluster.findLeaderForPartitions skips it, and the
 * send still resolves), which is what a partition added by `lattice topics scale` is for up to
 * this long. send() therefore checks every partition it sent to is in the answer and sends the
 * rest again once the metadata is due for a refresh; the scaling procedure waits this long
 * after adding partitions before producers place keys on them, so that resend is rare.
 */
export const PRODUCER_METADATA_MAX_AGE_MS = 5_000;
/** Resends of records whose partitions the metadata did not list, before the send fails. */
const MISSING_PARTITION_RESENDS = 3;

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
    metadataMaxAge: PRODUCER_METADATA_MAX_AGE_MS,
    // murmur2 like the Java client, so every producer places a key on the same partition.
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  return {
    async send(topic, codec, records) {
      const slot = await placement.acquire(topic);
      try {
        const count = slot.partitions;
        if (count === null) {
          const messages = records.map((r) => ({
            key: r.key,
            value: codec.encode(r.value),
            headers: requestIdHeaders(r.requestId),
          }));
          await producer.send({ topic, acks: -1, messages });
          return;
        }
        let pending: Message[] = records.map((r) => ({
          key: r.key,
          value: codec.encode(r.value),
          headers: requestIdHeaders(r.requestId),
          partition: partitionOfKey(topic, r.key, count),
        }));
        for (let resend = 0; ; resend++) {
          const written = new Set(
            (await producer.send({ topic, acks: -1, messages: pending })).map((m) => m.partition),
          );
          pending = pending.filter((m) => !written.has(m.partition!));
          if (pending.length === 0) return;
          const missing = [...new Set(pending.map((m) => m.partition))].join(', ');
          if (resend === MISSING_PARTITION_RESENDS) {
            throw new Error(
              `${topic}: partitions ${missing} are not in the producer's metadata; nothing sent to them`,
            );
          }
          // A key's records all went to one partition, so holding them back keeps the key's order.
          await sleep(PRODUCER_METADATA_MAX_AGE_MS);
        }
      } finally {
        slot.release();
      }
    },
    disconnect: () => producer.disconnect(),
  };
}
