// Where producers place a key while a topic's partition count changes. Kafka's own partitioner
// hashes over every partition the metadata lists, so adding partitions would move keys at once,
// while their older records still wait on the old partitions: a key handled on two partitions,
// out of order. Instead, producers hash over the topic's *active* count from a shared plan, which
// the scaling procedure (docs/operations.md, `lattice topics scale`) switches only after every
// producer has stopped producing with the old count and the old partitions are drained.

/** A topic's placement, as the scaling procedure publishes it. */
export interface PartitionPlan {
  /** The partition count keys are hashed over. */
  partitions: number;
  /** Bumped by every change; producers acknowledge the draining version they hold sends for. */
  version: number;
  /** `draining`: producers hold sends to the topic until the plan moves on. */
  state: 'active' | 'draining';
}

/** A producer's permission to send to a topic, held while the send is in flight. */
export interface PlacementSlot {
  /** The count to hash keys over; null: Kafka's own partitioner over the metadata's partitions. */
  partitions: number | null;
  /** The send settled (either way): a draining plan waits for every slot to be released. */
  release(): void;
}

export interface PartitionPlacement {
  /**
   * Waits until the topic may be produced to under a plan this process knows to be current,
   * and takes a slot for one send. Throws a RetryableError when that takes too long (the topic
   * is being re-partitioned, or the plan cannot be read): the caller answers 503.
   */
  acquire(topic: string): Promise<PlacementSlot>;
  /** The topic's plan as last read; null when it has none (Kafka's partitioner places). */
  planOf(topic: string): PartitionPlan | null;
  /**
   * Calls `listener` with the topic's plan whenever a read finds it changed: work that outlives
   * records (webhook endpoint loops) follows its keys to their new partitions with it.
   */
  onPlanChange(listener: (topic: string, plan: PartitionPlan) => void): void;
  close(): Promise<void>;
}

const UNPLANNED: PlacementSlot = { partitions: null, release() {} };

/**
 * No coordination: keys hash over the partitions Kafka reports. For tools and tests that never
 * run while a topic is re-partitioned.
 */
export const metadataPlacement: PartitionPlacement = {
  acquire: async () => UNPLANNED,
  planOf: () => null,
  onPlanChange() {},
  close: async () => {},
};
