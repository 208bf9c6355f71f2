// Fixed-window limiter shared by every edge node through one Redis counter per bucket and window
// (scripts/fixed-window-1.lua). The window is computed from this node's clock and is part of the
// key, so nodes agree on boundaries as long as their clocks (NTP) do.
import { type Clock, systemClock } from '@lattice/core';
import type { Redis } from 'ioredis';
import { assertCost, assertPolicy, resultOf, windowAt } from './fixed-window.ts';
import { DEFAULT_KEY_PREFIX, rateLimitKey } from './keys.ts';
import type { FixedWindowPolicy, RateLimiter, RateLimitResult } from './rate-limiter.ts';
import { runScript } from './scripts.ts';

export interface RedisRateLimiterOptions {
  redis: Redis;
  policy: FixedWindowPolicy;
  clock?: Clock;
  /** Default `lattice:`; tests pass a unique one. */
  keyPrefix?: string;
  /**
   * Extra key lifetime beyond the window end. A node whose clock lags still counts into the
   * window's key after this node thinks it is over; if the key had expired it would restart at
   * zero and hand out a second quota. Default 5000.
   */
  expiryGraceMs?: number;
}

/** Reply of fixed-window-1.lua: {count, ttlMs, applied}. */
function parseReply(reply: unknown): { count: number; applied: boolean } {
  if (
    Array.isArray(reply) &&
    reply.length === 3 &&
    reply.every((v) => typeof v === 'number' && Number.isInteger(v))
  ) {
    const [count, , applied] = reply as [number, number, number];
    return { count, applied: applied === 1 };
  }
  throw new Error(`fixed-window script returned an unexpected reply: ${JSON.stringify(reply)}`);
}

export function createRedisRateLimiter(opts: RedisRateLimiterOptions): RateLimiter {
  const { redis, policy } = opts;
  assertPolicy(policy);
  const clock = opts.clock ?? systemClock;
  const keyPrefix = opts.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const expiryGraceMs = opts.expiryGraceMs ?? 5000;
  if (!Number.isSafeInteger(expiryGraceMs) || expiryGraceMs < 0) {
    throw new RangeError('expiryGraceMs must be an integer >= 0');
  }

  return {
    policy,
    async consume(bucketId: string, cost = 1): Promise<RateLimitResult> {
      assertCost(cost);
      const { startMs, resetMs } = windowAt(clock.nowMs(), policy.windowMs);
      const key = rateLimitKey(keyPrefix, policy.name, bucketId, startMs);
      const reply = await runScript(
        redis,
        'fixed-window',
        [key],
        [cost, resetMs + expiryGraceMs, policy.limit],
      );
      const { count, applied } = parseReply(reply);
      // Reset time comes from the aligned window, not the key's TTL, which includes the grace.
      return resultOf(policy.limit, count, applied, resetMs);
    },
  };
}
