// The platform's PartitionPlanStore (@lattice/kafka's partition-plan-store.ts) in Redis, where
// every producing role already is. Heartbeats are stamped with Redis's clock (a Lua script), so
// producers on machines whose clocks disagree are still judged by one. Acknowledgements expire
// after a day: a scaling run reads them within minutes.
import type { Redis } from 'ioredis';
import { partitionPlanKeys } from './keys.ts';
import { runScript } from './scripts.ts';

/** The shape of @lattice/kafka's PartitionPlan (kept structural: this package does not import Kafka). */
export interface StoredPartitionPlan {
  partitions: number;
  version: number;
  state: 'active' | 'draining';
}

const ACK_TTL_SECONDS = 86_400;

export function createRedisPartitionPlanStore(redis: Redis, prefix: string) {
  const keys = partitionPlanKeys(prefix);
  return {
    async readPlans(): Promise<Map<string, StoredPartitionPlan>> {
      const all = await redis.hgetall(keys.plans);
      return new Map(
        Object.entries(all).map(([topic, json]) => [topic, JSON.parse(json) as StoredPartitionPlan]),
      );
    },
    async writePlan(topic: string, plan: StoredPartitionPlan): Promise<void> {
      await redis.hset(keys.plans, topic, JSON.stringify(plan));
    },
    async heartbeat(producerId: string): Promise<void> {
      await runScript(redis, 'producer-heartbeat', [keys.producers], [producerId]);
    },
    async liveProducers(leaseMs: number): Promise<string[]> {
      return (await runScript(redis, 'live-producers', [keys.producers], [leaseMs])) as string[];
    },
    async removeProducer(producerId: string): Promise<void> {
      await redis.zrem(keys.producers, producerId);
    },
    async acknowledge(topic: string, version: number, producerId: string): Promise<void> {
      const key = keys.acks(topic, version);
      await redis.multi().sadd(key, producerId).expire(key, ACK_TTL_SECONDS).exec();
    },
    async acknowledged(topic: string, version: number): Promise<string[]> {
      return redis.smembers(keys.acks(topic, version));
    },
  };
}
