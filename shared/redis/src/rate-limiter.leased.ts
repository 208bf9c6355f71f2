// Fixed-window limiter shared by every node through one Redis counter per bucket and window, like
// the Redis limiter, but without a Redis round trip per call: a node LEASES units of the window's
// budget (scripts/lease-window-1.lua) and admits calls from its leased units locally, going back
// to Redis only when they are used up.
//
// - Never over-admits, across any number of nodes: a lease takes units from the shared counter
//   for good, the script never takes it above the limit, and a node admits only what it leased.
// - Exact at the bound: a lease takes at most 1/leaseDivisor of what the window has left (and at
//   most maxLease), so leases shrink as the window fills and are single units near the limit; a
//   call that needs more than the window has left (per the last count Redis reported, which can
//   only have grown since) is refused without asking again. One node alone admits exactly
//   `limit` units per window and refuses the next call.
// - Bounded under-admission: units a node leased and did not use before the window rolled are
//   lost to the bucket (a client that moved to another node, or stopped). A node holds at most
//   one lease per bucket plus the last quarter of the previous one (see prefetch), so the loss is
//   at most 1.25 × maxLease per node and bucket, and never more than what other nodes leave
//   unused. A lease request that timed out but was granted later is lost the same way.
// - Concurrent calls of one bucket on one node share one in-flight lease request; lease requests
//   of one event-loop turn leave together (a turn batcher), as one write when the connection has
//   ioredis auto-pipelining on.
// - Prefetch: a bucket that used a lease of at least 4 units asks for the next one in the
//   background when a quarter of it is left, so a busy client rarely waits for Redis. Near the
//   bound (a grant would be under 4 units) there is no prefetch: leases are taken on demand.
// - Reported counts are this node's view: the window counter at its last lease, less the units it
//   still holds. Exact with one node; across nodes `remaining` can be higher than the truth by
//   what other nodes took since (the `RateLimit` header is advisory there).
// - Leases die with the window: the state of a bucket belongs to one window, and the whole table
//   is dropped when the window rolls. Memory is bounded by maxBuckets, held as two generations
//   of maxBuckets / 2: when the young one is full the old one is dropped (a dropped bucket's units
//   are lost, never re-granted) and a bucket found in the old one moves to the young one. O(1),
//   unlike evicting one by one from the head of a Map, which walks the deleted entries V8 keeps
//   there until it rehashes (tens of µs per call with 100 000 buckets).
//
// Errors: a lease request that fails or takes longer than timeoutMs rejects every call waiting on
// it; wrap the limiter in createFallbackRateLimiter (timeoutMs 0 there) so those are answered
// locally. Calls answered from leased units never touch Redis and never fail.
import { type Clock, createTurnBatcher, type Scheduler, systemScheduler } from '@lattice/core';
import type { Redis } from 'ioredis';
import { assertCost, assertPolicy, resultOf } from './fixed-window.ts';
import { DEFAULT_KEY_PREFIX, rateLimitKey } from './keys.ts';
import type { FixedWindowPolicy, RateLimiter, RateLimitResult } from './rate-limiter.ts';
import { runScript, type ScriptArg } from './scripts.ts';

export interface LeasedRateLimiterOptions {
  redis: Redis;
  policy: FixedWindowPolicy;
  /** Default: the scheduler. */
  clock?: Clock;
  /** Runs the lease request timeout. Default systemScheduler. */
  scheduler?: Scheduler;
  /** Default `lattice:`; tests pass a unique one. */
  keyPrefix?: string;
  /** Extra key lifetime beyond the window end, for nodes whose clocks lag. Default 5000. */
  expiryGraceMs?: number;
  /**
   * Most units one lease takes; bounds what one node can leave unused per bucket and window.
   * Default: a tenth of the limit, between 1 and 1024 (10 for 100 per minute): the loss stays
   * a bounded share of the limit, and a generous limit costs one round trip per 1024 calls.
   */
  maxLease?: number;
  /** A lease takes at most 1/leaseDivisor of the window's remaining budget. Default 4. */
  leaseDivisor?: number;
  /** A lease request not answered within this fails the calls waiting on it. Default 250. */
  timeoutMs?: number;
  /** Buckets held at once within a window (>= 2); the least recently used half goes first beyond. Default 100 000. */
  maxBuckets?: number;
  /** Send the lease requests of one event-loop turn together after it. Default true. */
  coalesce?: boolean;
  /** Ask for the next lease in the background when a quarter of a large one is left. Default true. */
  prefetch?: boolean;
}

export interface LeasedRateLimiter extends RateLimiter {
  tryConsume(bucketId: string, cost?: number): RateLimitResult | undefined;
  /** Buckets held for the current window; for tests and metrics. */
  bucketCount(): number;
}

interface Lease {
  /** Units leased by this node and not used yet. */
  units: number;
  /** The window's counter in Redis as of the last reply: everything leased by every node. */
  count: number;
  /** The lease request in flight for this bucket, shared by every call waiting for units. */
  pending: Promise<void> | undefined;
  /** Units of the last grant, for the prefetch threshold. */
  lastGrant: number;
}

/** The default maxLease's ceiling. */
const MAX_DEFAULT_LEASE = 1024;

/** Leases smaller than this are taken on demand only. */
const PREFETCH_MIN_UNITS = 4;

interface Queued {
  key: string;
  args: ScriptArg[];
  settled: boolean;
  resolve(reply: unknown): void;
  reject(err: unknown): void;
}

/** Reply of lease-window-1.lua: {granted, count, ttlMs}. */
function parseReply(reply: unknown): { granted: number; count: number } {
  if (
    Array.isArray(reply) &&
    reply.length === 3 &&
    reply.every((v) => typeof v === 'number' && Number.isInteger(v) && v >= 0)
  ) {
    return { granted: reply[0] as number, count: reply[1] as number };
  }
  throw new Error(`lease-window script returned an unexpected reply: ${JSON.stringify(reply)}`);
}

function integerAtLeast(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer >= ${min}`);
  return value;
}

export function createLeasedRateLimiter(opts: LeasedRateLimiterOptions): LeasedRateLimiter {
  const { redis, policy } = opts;
  assertPolicy(policy);
  const { limit, windowMs } = policy;
  const scheduler = opts.scheduler ?? systemScheduler;
  const clock = opts.clock ?? scheduler;
  const keyPrefix = opts.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const expiryGraceMs = integerAtLeast('expiryGraceMs', opts.expiryGraceMs ?? 5000, 0);
  const maxLease = integerAtLeast(
    'maxLease',
    opts.maxLease ?? Math.min(MAX_DEFAULT_LEASE, Math.max(1, Math.floor(limit / 10))),
    1,
  );
  const leaseDivisor = integerAtLeast('leaseDivisor', opts.leaseDivisor ?? 4, 1);
  const timeoutMs = integerAtLeast('timeoutMs', opts.timeoutMs ?? 250, 1);
  const generationSize = Math.floor(integerAtLeast('maxBuckets', opts.maxBuckets ?? 100_000, 2) / 2);
  const coalesce = opts.coalesce ?? true;
  const prefetch = opts.prefetch ?? true;

  // The buckets of ONE window (windowStartMs), in two generations; every lease dies when the
  // window rolls.
  let windowStartMs = Number.NaN;
  let young = new Map<string, Lease>();
  let old = new Map<string, Lease>();

  function insert(bucketId: string, bucket: Lease): void {
    if (young.size >= generationSize) {
      old = young;
      young = new Map();
    }
    young.set(bucketId, bucket);
  }

  function lookup(bucketId: string): Lease | undefined {
    const bucket = young.get(bucketId);
    if (bucket !== undefined || old.size === 0) return bucket;
    const aged = old.get(bucketId);
    if (aged !== undefined) {
      old.delete(bucketId);
      insert(bucketId, aged);
    }
    return aged;
  }

  function flush(batch: Queued[]): void {
    let open = batch.length;
    const timer = scheduler.setTimeout(() => {
      for (const q of batch) {
        if (q.settled) continue;
        q.settled = true;
        q.reject(new Error(`no answer to a lease request within ${timeoutMs} ms`));
      }
    }, timeoutMs);
    const done = (): void => {
      open -= 1;
      if (open === 0) scheduler.clearTimer(timer);
    };
    // Issued synchronously in one tick: auto-pipelining sends them as one write.
    for (const q of batch) {
      runScript(redis, 'lease-window', [q.key], q.args).then(
        (reply) => {
          done();
          if (q.settled) return;
          q.settled = true;
          q.resolve(reply);
        },
        (err: unknown) => {
          done();
          if (q.settled) return;
          q.settled = true;
          q.reject(err);
        },
      );
    }
  }

  // Without coalescing, only the requests of one synchronous stretch leave together.
  const requests = createTurnBatcher(flush, { boundary: coalesce ? 'turn' : 'microtask' });

  function send(key: string, args: ScriptArg[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      requests.add({ key, args, settled: false, resolve, reject });
    });
  }

  /** Asks Redis for at least `need` units (0 with maxGrant 0: a read). */
  async function lease(bucketId: string, startMs: number, resetMs: number, need: number, maxGrant: number) {
    const key = rateLimitKey(keyPrefix, policy.name, bucketId, startMs);
    return parseReply(await send(key, [need, maxGrant, limit, resetMs + expiryGraceMs, leaseDivisor]));
  }

  function requestLease(bucketId: string, bucket: Lease, need: number, startMs: number, resetMs: number) {
    const pending: Promise<void> = lease(bucketId, startMs, resetMs, need, Math.max(need, maxLease))
      .then(({ granted, count }) => {
        bucket.units += granted;
        if (granted > 0) bucket.lastGrant = granted;
        // The counter only grows within a window; an older reply never lowers what we know.
        if (count > bucket.count) bucket.count = count;
      })
      .finally(() => {
        if (bucket.pending === pending) bucket.pending = undefined;
      });
    bucket.pending = pending;
    return pending;
  }

  /** Starts the next lease in the background when the bucket is busy and the bound is far. */
  function maybePrefetch(bucketId: string, bucket: Lease, startMs: number, resetMs: number): void {
    if (
      !prefetch ||
      bucket.pending !== undefined ||
      bucket.lastGrant < PREFETCH_MIN_UNITS ||
      bucket.units * 4 > bucket.lastGrant ||
      Math.min(maxLease, Math.floor((limit - bucket.count) / leaseDivisor)) < PREFETCH_MIN_UNITS
    ) {
      return;
    }
    // need 0: the script grants its share or nothing. A failure is left to the next call that
    // needs units (it waits on this request or makes its own, and the fallback answers it).
    requestLease(bucketId, bucket, 0, startMs, resetMs).catch(() => {});
  }

  /** The answer that needs no Redis, or undefined. */
  function decide(
    bucketId: string,
    bucket: Lease,
    cost: number,
    startMs: number,
    resetMs: number,
  ): RateLimitResult | undefined {
    if (cost <= bucket.units) {
      bucket.units -= cost;
      maybePrefetch(bucketId, bucket, startMs, resetMs);
      return resultOf(limit, bucket.count - bucket.units, true, resetMs);
    }
    // The window has at most limit - count left (the counter never shrinks): certain refusal.
    if (cost - bucket.units > limit - bucket.count) {
      return resultOf(limit, bucket.count - bucket.units, false, resetMs);
    }
    return undefined;
  }

  /** Start of the current window; drops every bucket when it rolled. */
  function currentWindow(nowMs: number): number {
    const startMs = Math.floor(nowMs / windowMs) * windowMs;
    if (startMs !== windowStartMs) {
      young = new Map();
      old = new Map();
      windowStartMs = startMs;
    }
    return startMs;
  }

  function tryConsume(bucketId: string, cost = 1): RateLimitResult | undefined {
    assertCost(cost);
    const nowMs = clock.nowMs();
    const startMs = currentWindow(nowMs);
    const bucket = lookup(bucketId);
    return bucket === undefined
      ? undefined
      : decide(bucketId, bucket, cost, startMs, startMs + windowMs - nowMs);
  }

  return {
    policy,
    tryConsume,
    bucketCount: () => young.size + old.size,
    async consume(bucketId: string, cost = 1): Promise<RateLimitResult> {
      assertCost(cost);
      for (;;) {
        const nowMs = clock.nowMs();
        const startMs = currentWindow(nowMs);
        const resetMs = startMs + windowMs - nowMs;
        let bucket = lookup(bucketId);
        if (bucket === undefined) {
          if (cost === 0) {
            // A read of a bucket this node does not hold: ask Redis, without occupying memory.
            const { count } = await lease(bucketId, startMs, resetMs, 0, 0);
            return resultOf(limit, count, count <= limit, resetMs);
          }
          bucket = { units: 0, count: 0, pending: undefined, lastGrant: 0 };
          insert(bucketId, bucket);
        } else {
          const answer = decide(bucketId, bucket, cost, startMs, resetMs);
          if (answer !== undefined) return answer;
        }
        const own = bucket.pending === undefined;
        await (bucket.pending ?? requestLease(bucketId, bucket, cost - bucket.units, startMs, resetMs));
        if (!own) continue;
        // This call's own lease: decided on the bucket it was granted to, even if the table has
        // dropped that bucket meanwhile (the units are this node's either way), unless the
        // window rolled while waiting.
        const afterMs = clock.nowMs();
        if (Math.floor(afterMs / windowMs) * windowMs !== startMs) continue;
        const answer = decide(bucketId, bucket, cost, startMs, startMs + windowMs - afterMs);
        if (answer !== undefined) return answer;
      }
    },
  };
}
