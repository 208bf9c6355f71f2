// In-process fixed-window limiter: the fallback when Redis is unreachable, and a stand-in for
// unit tests. Memory is bounded by maxBuckets, because during an outage the ids are whatever
// clients send (IPs), and an attacker spraying addresses must not grow the heap without end, nor
// make each call slower (see the generations below).
import { type Clock, systemClock } from '@lattice/core';
import { assertCost, assertPolicy, resultOf, windowAt } from './fixed-window.ts';
import type { FixedWindowPolicy, RateLimiter, RateLimitResult } from './rate-limiter.ts';

export interface MemoryRateLimiterOptions {
  policy: FixedWindowPolicy;
  clock?: Clock;
  /** Most buckets held at once (>= 2). Default 100 000 (a few MB). */
  maxBuckets?: number;
}

export interface MemoryRateLimiter extends RateLimiter {
  tryConsume(bucketId: string, cost?: number): RateLimitResult;
  /** Buckets currently held; for tests and metrics. */
  bucketCount(): number;
}

export function createMemoryRateLimiter(opts: MemoryRateLimiterOptions): MemoryRateLimiter {
  const { policy } = opts;
  assertPolicy(policy);
  const clock = opts.clock ?? systemClock;
  const maxBuckets = opts.maxBuckets ?? 100_000;
  if (!Number.isSafeInteger(maxBuckets) || maxBuckets < 2) throw new RangeError('maxBuckets must be >= 2');
  const generationSize = Math.floor(maxBuckets / 2);

  // Counts of ONE window (all buckets share aligned windows, so a past window's count is as good
  // as none): the whole table is dropped when the window rolls. Within a window the counts are
  // held in two generations of maxBuckets / 2: when the young one is full the old one is dropped
  // (its ids start afresh if they come back) and a bucket found in the old one moves to the young
  // one. Every step is O(1). Keeping exact least-recently-used order in one Map instead (delete
  // and re-insert on every call, evict from the head) walks the deleted entries V8 keeps at the
  // head until it rehashes: tens of µs per call with 100 000 addresses, during an outage, when
  // this limiter answers for every edge request.
  let windowStartMs = Number.NaN;
  let young = new Map<string, number>();
  let old = new Map<string, number>();

  function countOf(bucketId: string): number | undefined {
    const count = young.get(bucketId);
    if (count !== undefined || old.size === 0) return count;
    return old.get(bucketId);
  }

  function store(bucketId: string, count: number): void {
    if (!young.has(bucketId)) {
      old.delete(bucketId);
      if (young.size >= generationSize) {
        old = young;
        young = new Map();
      }
    }
    young.set(bucketId, count);
  }

  // Nothing here waits for I/O, so every answer is known at once: tryConsume always answers, and
  // a caller holding it (the edge during a Redis outage) stays synchronous.
  function tryConsume(bucketId: string, cost = 1): RateLimitResult {
    assertCost(cost);
    const { startMs, resetMs } = windowAt(clock.nowMs(), policy.windowMs);
    if (startMs !== windowStartMs) {
      young = new Map();
      old = new Map();
      windowStartMs = startMs;
    }
    const count = countOf(bucketId) ?? 0;
    // A peek must not occupy memory.
    if (cost === 0) return resultOf(policy.limit, count, count <= policy.limit, resetMs);
    const allowed = count + cost <= policy.limit;
    const after = allowed ? count + cost : count;
    store(bucketId, after);
    return resultOf(policy.limit, after, allowed, resetMs);
  }

  return {
    policy,
    bucketCount: () => young.size + old.size,
    tryConsume,
    consume: async (bucketId, cost) => tryConsume(bucketId, cost),
  };
}
