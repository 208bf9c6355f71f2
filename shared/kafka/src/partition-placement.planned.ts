// The placement every producing role uses: keys hash over the count of the topic's plan, read from
// the shared PartitionPlanStore. The scaling procedure relies on three promises kept here:
// - a producer acknowledges a plan version only once it places by it and no send it started
//   under an older one is still in flight (so "every live producer acknowledged" means no record
//   with the old placement can still arrive);
// - under a `draining` plan no send starts: sends wait for the next version (bounded);
// - a producer that could not read the plans for `leaseMs` stops sending (bounded wait, then a
//   RetryableError the caller answers 503 with), because the procedure counts a producer whose
//   heartbeat is that old as gone, and a gone producer must not place a key by a stale plan.
import {
  errorMessage,
  type Logger,
  RetryableError,
  type Scheduler,
  systemScheduler,
  type Timer,
} from '@lattice/core';
import type { PartitionPlacement, PartitionPlan, PlacementSlot } from './partition-placement.ts';
import type { PartitionPlanStore } from './partition-plan-store.ts';

export interface PlannedPlacementOptions {
  store: PartitionPlanStore;
  /** Unique per producing process (it is the heartbeat's and the acknowledgements' name). */
  producerId: string;
  logger: Logger;
  scheduler?: Scheduler;
  /** How often plans are read and the heartbeat sent. Default 250 ms. */
  refreshMs?: number;
  /** Past this without a successful read, sends stop (see the file comment). Default 60 s (KAFKA_PARTITION_PLAN_LEASE_MS). */
  leaseMs?: number;
  /** The longest a send waits for a draining plan or a readable store. Default 10 s. */
  holdTimeoutMs?: number;
}

/** A topic without a plan: placed by Kafka's partitioner; its sends count as version 0. */
const UNPLANNED_VERSION = 0;

export function createPlannedPlacement(opts: PlannedPlacementOptions): PartitionPlacement {
  const scheduler = opts.scheduler ?? systemScheduler;
  const refreshMs = opts.refreshMs ?? 250;
  const leaseMs = opts.leaseMs ?? 60_000;
  const holdTimeoutMs = opts.holdTimeoutMs ?? 10_000;
  const log = opts.logger.child({ component: 'partition-placement' });

  let plans = new Map<string, PartitionPlan>();
  /** When the last successful read was *sent*: the lease counts from then. */
  let readAtMs = Number.NEGATIVE_INFINITY;
  /** Sends in flight by topic, then by the plan version they were placed under. */
  const inFlight = new Map<string, Map<number, number>>();
  const acknowledged = new Set<string>();
  let failureLogged = false;
  const listeners: Array<(topic: string, plan: PartitionPlan) => void> = [];
  let closed = false;

  const versionOf = (topic: string) => plans.get(topic)?.version ?? UNPLANNED_VERSION;

  function olderSendsInFlight(topic: string, version: number): boolean {
    for (const [v, n] of inFlight.get(topic) ?? []) if (v < version && n > 0) return true;
    return false;
  }

  async function acknowledgeCurrent(): Promise<void> {
    for (const [topic, plan] of plans) {
      const key = `${topic}@${plan.version}`;
      if (acknowledged.has(key) || olderSendsInFlight(topic, plan.version)) continue;
      await opts.store.acknowledge(topic, plan.version, opts.producerId);
      acknowledged.add(key);
    }
  }

  async function refresh(): Promise<void> {
    const startedAtMs = scheduler.nowMs();
    try {
      await opts.store.heartbeat(opts.producerId);
      const previous = plans;
      plans = await opts.store.readPlans();
      readAtMs = startedAtMs;
      for (const [topic, plan] of plans) {
        if (previous.get(topic)?.version === plan.version) continue;
        for (const listener of listeners) {
          try {
            listener(topic, plan);
          } catch (err) {
            log.error({ err, topic }, 'partition plan listener failed');
          }
        }
      }
      await acknowledgeCurrent();
      if (failureLogged) log.info('partition plans readable again');
      failureLogged = false;
    } catch (err) {
      if (!failureLogged)
        log.warn({ err: errorMessage(err) }, 'partition plans unreadable; sends stop past the lease');
      failureLogged = true;
    }
  }

  let refreshing: Promise<void> | null = null;
  const tick = () => {
    refreshing ??= refresh().finally(() => {
      refreshing = null;
    });
    return refreshing;
  };
  // Sends wait for the first read (the lease starts invalid), so there is nothing to await here.
  void tick();
  const timer: Timer = scheduler.setInterval(() => void tick(), refreshMs, { unref: true });

  function release(topic: string, version: number): void {
    const byVersion = inFlight.get(topic)!;
    byVersion.set(version, byVersion.get(version)! - 1);
    // A draining plan waits for exactly this: acknowledge now rather than at the next tick.
    const plan = plans.get(topic);
    if (plan && plan.version > version && !olderSendsInFlight(topic, plan.version)) void tick();
  }

  return {
    async acquire(topic) {
      const deadline = scheduler.nowMs() + holdTimeoutMs;
      for (;;) {
        if (closed) throw new RetryableError('the producer is closing');
        const leaseValid = scheduler.nowMs() - readAtMs <= leaseMs;
        const plan = plans.get(topic);
        if (leaseValid && plan?.state !== 'draining') {
          const version = versionOf(topic);
          const byVersion = inFlight.get(topic) ?? new Map<number, number>();
          inFlight.set(topic, byVersion);
          byVersion.set(version, (byVersion.get(version) ?? 0) + 1);
          const slot: PlacementSlot = {
            partitions: plan ? plan.partitions : null,
            release: () => release(topic, version),
          };
          return slot;
        }
        if (scheduler.nowMs() >= deadline) {
          throw new RetryableError(
            leaseValid
              ? `${topic} is being re-partitioned; retry shortly`
              : 'partition plans cannot be read; retry shortly',
            1000,
          );
        }
        await scheduler.sleep(Math.min(refreshMs, Math.max(1, deadline - scheduler.nowMs())));
      }
    },
    planOf: (topic) => plans.get(topic) ?? null,
    onPlanChange(listener) {
      listeners.push(listener);
    },
    async close() {
      closed = true;
      scheduler.clearTimer(timer);
      await refreshing;
      await opts.store.removeProducer(opts.producerId).catch(() => {});
    },
  };
}
