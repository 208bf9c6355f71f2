// Where partition plans and the producers that follow them meet (partition-placement.ts). One
// implementation per shared store: `.redis` in @lattice/redis (the platform's), `.memory` here for
// unit tests of the placement logic.
import type { PartitionPlan } from './partition-placement.ts';

export interface PartitionPlanStore {
  /** The plan of every topic that has one. */
  readPlans(): Promise<Map<string, PartitionPlan>>;
  writePlan(topic: string, plan: PartitionPlan): Promise<void>;
  /** Producer `producerId` is alive; the store stamps the time (one clock for every producer). */
  heartbeat(producerId: string): Promise<void>;
  /** Producers whose last heartbeat is at most `leaseMs` old by the store's clock. */
  liveProducers(leaseMs: number): Promise<string[]>;
  /** A producer that is leaving for good (it will not send again). */
  removeProducer(producerId: string): Promise<void>;
  /** `producerId` places by `version` of the topic's plan now and has no send under an older one. */
  acknowledge(topic: string, version: number, producerId: string): Promise<void>;
  acknowledged(topic: string, version: number): Promise<string[]>;
}
