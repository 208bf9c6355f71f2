// In-process fixed-window limiter: the fallback when Redis is unreachable, and a stand-in for
// unit tests. Memory is bounded by maxBuckets, because during an outage the ids are whatever
// clients send (IPs), and an attacker spraying addresses must not grow the heap without end.
import { type Clock, systemClock } from '@lattice/core';
import { assertCost, assertPolicy, resultOf, windowAt } from './fixed-window.ts';
import type { FixedWindowPolicy, RateLimiter, RateLimitResult } from './rate-limiter.ts';

export interface MemoryRateLimiterOptions {
  policy: FixedWindowPolicy;
  clock?: Clock;
  /** Most buckets tracked at once. Default 100 000 (a few MB). */
  maxBuckets?: number;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** Buckets currently held; for tests and metrics. */
  bucketCount(): number;
}

interface Bucket {
  windowStartMs: number;
  count: number;
}

export function createMemoryRateLimiter(opts: MemoryRateLimiterOptions): MemoryRateLimiter {
  const { policy } = opts;
  assertPolicy(policy);
  const clock = opts.clock ?? systemClock;
  const maxBuckets = opts.maxBuckets ?? 100_000;
  if (!Number.isSafeInteger(maxBuckets) || maxBuckets < 1) throw new RangeError('maxBuckets must be >= 1');

  // Map order is kept as least-recently-used first (touching re-inserts). All buckets share one
  // aligned window, so the buckets of past windows are exactly the ones at the head: pruning
  // stops at the first live bucket and never scans the whole map.
  const buckets = new Map<string, Bucket>();

  function makeRoom(currentWindowStartMs: number): void {
    for (const [id, bucket] of buckets) {
      // Past windows are dead weight whatever the size; live ones go only when the map is full.
      if (bucket.windowStartMs >= currentWindowStartMs && buckets.size < maxBuckets) return;
      // When full of live buckets this forgets the least recently used one, whose id may then
      // get a fresh window; the alternative, refusing unknown ids, would lock out every newcomer.
      buckets.delete(id);
    }
  }

  return {
    policy,
    bucketCount: () => buckets.size,
    async consume(bucketId: string, cost = 1): Promise<RateLimitResult> {
      assertCost(cost);
      const { startMs, resetMs } = windowAt(clock.nowMs(), policy.windowMs);
      let bucket = buckets.get(bucketId);
      if (bucket) {
        buckets.delete(bucketId);
        if (bucket.windowStartMs !== startMs) bucket = { windowStartMs: startMs, count: 0 };
      } else {
        // A peek must not occupy memory.
        if (cost === 0) return resultOf(policy.limit, 0, true, resetMs);
        makeRoom(startMs);
        bucket = { windowStartMs: startMs, count: 0 };
      }
      const allowed = bucket.count + cost <= policy.limit;
      if (allowed) bucket.count += cost;
      buckets.set(bucketId, bucket);
      return resultOf(policy.limit, bucket.count, allowed, resetMs);
    },
  };
}
