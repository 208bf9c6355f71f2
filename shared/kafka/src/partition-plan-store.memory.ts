// In-memory PartitionPlanStore for unit tests of the placement logic (one process, one clock).
import type { Clock } from '@lattice/core';
import type { PartitionPlan } from './partition-placement.ts';
import type { PartitionPlanStore } from './partition-plan-store.ts';

export function createMemoryPartitionPlanStore(clock: Clock): PartitionPlanStore & { failing: boolean } {
  const plans = new Map<string, PartitionPlan>();
  const seen = new Map<string, number>();
  const acks = new Map<string, Set<string>>();
  const store = {
    /** Makes every call fail, as an unreachable store would. */
    failing: false,
    async readPlans() {
      check();
      return new Map(plans);
    },
    async writePlan(topic: string, plan: PartitionPlan) {
      check();
      plans.set(topic, { ...plan });
    },
    async heartbeat(producerId: string) {
      check();
      seen.set(producerId, clock.nowMs());
    },
    async liveProducers(leaseMs: number) {
      check();
      return [...seen].filter(([, at]) => clock.nowMs() - at <= leaseMs).map(([id]) => id);
    },
    async removeProducer(producerId: string) {
      check();
      seen.delete(producerId);
    },
    async acknowledge(topic: string, version: number, producerId: string) {
      check();
      const key = `${topic}@${version}`;
      acks.set(key, (acks.get(key) ?? new Set()).add(producerId));
    },
    async acknowledged(topic: string, version: number) {
      check();
      return [...(acks.get(`${topic}@${version}`) ?? [])];
    },
  };
  function check() {
    if (store.failing) throw new Error('plan store unreachable');
  }
  return store;
}
