// Which partition a key's records land on: the producers' partitioner (murmur2, as the Java
// client) over all of a topic's partitions. An actor kind whose work outlives its records (webhook
// endpoints' due retries) uses it to find the keys it owns after a rebalance.
import { Partitioners } from 'kafkajs';

const partitioner = Partitioners.DefaultPartitioner();

type PartitionMetadata = Parameters<typeof partitioner>[0]['partitionMetadata'];
/** By partition count: producers place every record with it, so it is built once per count. */
const metadataByCount = new Map<number, PartitionMetadata>();

export function partitionOfKey(topic: string, key: string, partitionCount: number): number {
  let partitionMetadata = metadataByCount.get(partitionCount);
  if (!partitionMetadata) {
    partitionMetadata = Array.from({ length: partitionCount }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
    }));
    metadataByCount.set(partitionCount, partitionMetadata);
  }
  return partitioner({ topic, partitionMetadata, message: { key, value: null } });
}
