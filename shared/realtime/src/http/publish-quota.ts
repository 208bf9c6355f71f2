// The per-product publish quota (spec "Publish quota"): fixed windows of 10 s counted atomically
// in Redis (the fixed-window script of @lattice/redis). Only crossing the hard limit is refused;
// the sustained rate and the burst allowance (50/s × 10 s + 100 = 600 per window by default) are
// the soft budget: a publish beyond it still passes, and is counted (metrics.overSustained).
// Every number is configurable per deployment (config.publishQuota, REALTIME_PUBLISH_*). Redis
// unavailable: the in-process limiter answers (never a 5xx, never an open door), as for the
// edge's per-IP limit, and each such answer is counted (metrics.fallback).
import {
  type Clock,
  ConfigError,
  createKeyedTurnBatcher,
  type Environment,
  type Logger,
  type PublishQuotaSettings,
  systemClock,
} from '@lattice/core';
import {
  createFallbackRateLimiter,
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type FixedWindowPolicy,
  type RateLimiter,
  type RateLimitOutcome,
  type RateLimitResult,
} from '@lattice/redis';
import type { Redis } from 'ioredis';

export interface PublishQuota {
  /** Sustained publishes per second (soft). */
  sustainedPerSecond: number;
  windowMs: number;
  /** Extra publishes per window above the sustained rate (soft). */
  burstPerWindow: number;
  /** Publishes per window; the one beyond is refused with 429. */
  hardLimitPerWindow: number;
}

export const DEFAULT_PUBLISH_QUOTA: PublishQuota = {
  sustainedPerSecond: 50,
  windowMs: 10_000,
  burstPerWindow: 100,
  hardLimitPerWindow: 1100,
};

export const PUBLISH_QUOTA_POLICY_NAME = 'publish';

/** The soft budget of one window: sustained rate over the window plus the burst allowance. */
export function softLimitPerWindow(quota: PublishQuota): number {
  return Math.floor((quota.sustainedPerSecond * quota.windowMs) / 1000) + quota.burstPerWindow;
}

export function publishQuotaPolicy(quota: PublishQuota): FixedWindowPolicy {
  return { name: PUBLISH_QUOTA_POLICY_NAME, limit: quota.hardLimitPerWindow, windowMs: quota.windowMs };
}

export function checkPublishQuota(quota: PublishQuota): PublishQuota {
  const ints: Array<[keyof PublishQuota, number]> = [
    ['sustainedPerSecond', 0],
    ['windowMs', 1],
    ['burstPerWindow', 0],
    ['hardLimitPerWindow', 1],
  ];
  for (const [name, min] of ints) {
    const v = quota[name];
    if (!Number.isSafeInteger(v) || v < min)
      throw new ConfigError(`publish quota ${name} must be an integer >= ${min}`);
  }
  return quota;
}

/** A deployment's quota: its numbers (config.publishQuota), the spec's defaults for the rest. */
export function publishQuotaOf(settings: PublishQuotaSettings): PublishQuota {
  return checkPublishQuota({ ...DEFAULT_PUBLISH_QUOTA, ...settings });
}

export interface PublishQuotaOutcome extends RateLimitOutcome {
  /** True when this publish passed but is beyond the sustained rate plus burst of its window. */
  overSustained: boolean;
}

export interface PublishQuotaLimiter {
  readonly quota: PublishQuota;
  /** Counts one publish of the product in the environment, or refuses it (allowed false). */
  consume(productId: string, environment: Environment): Promise<PublishQuotaOutcome>;
}

/** What the quota reports; realtimeHttpMetrics() counts it on the deployment's registry. */
export interface PublishQuotaMetrics {
  /** A count answered by the in-process limiter because Redis failed or was too slow. */
  fallback(): void;
  /** A publish that passed beyond the soft budget (sustained rate plus burst) of its window. */
  overSustained(productId: string, environment: Environment): void;
}

export interface PublishQuotaLimiterOptions {
  redis: Redis;
  /** config.redisKeyPrefix. */
  keyPrefix: string;
  quota?: PublishQuota;
  logger: Logger;
  clock?: Clock;
  /** config.rateLimitRedisTimeoutMs: a slower count is answered by the local limiter. Default 250. */
  redisTimeoutMs?: number;
  metrics: PublishQuotaMetrics;
}

/** Bucket of one product in one environment: development traffic never eats production's quota. */
export function publishQuotaBucket(productId: string, environment: Environment): string {
  return `${productId}:${environment}`;
}

export function createPublishQuotaLimiter(opts: PublishQuotaLimiterOptions): PublishQuotaLimiter {
  const quota = checkPublishQuota(opts.quota ?? DEFAULT_PUBLISH_QUOTA);
  const policy = publishQuotaPolicy(quota);
  const soft = softLimitPerWindow(quota);
  const clock = opts.clock ?? systemClock;
  const limiter: RateLimiter = createFallbackRateLimiter({
    primary: createRedisRateLimiter({ redis: opts.redis, policy, keyPrefix: opts.keyPrefix, clock }),
    local: createMemoryRateLimiter({ policy, clock }),
    logger: opts.logger,
    countFallback: () => opts.metrics.fallback(),
    ...(opts.redisTimeoutMs === undefined ? {} : { timeoutMs: opts.redisTimeoutMs }),
    clock,
  });
  // Group counting: the publishes of one bucket asked for in the same event-loop turn (a keyed
  // turn batcher) are taken with one consume(cost = k) (one script call, one Redis write) instead
  // of k. The script takes all k or nothing, so it never counts past the hard limit; when the
  // group does not fit, its publishes are counted one by one in arrival order, so exactly those
  // that fit pass, as without grouping. Member j of an admitted group is answered as the
  // (j+1)-th of the k.
  type Waiter = { resolve(r: RateLimitResult): void; reject(err: unknown): void };

  async function take(bucket: string, group: Waiter[]): Promise<void> {
    try {
      if (group.length > 1) {
        const all = await limiter.consume(bucket, group.length);
        if (all.allowed) {
          for (const [j, w] of group.entries()) {
            const count = all.count - (group.length - 1 - j);
            w.resolve({ ...all, count, remaining: Math.max(0, all.limit - count) });
          }
          return;
        }
      }
      for (const w of group) w.resolve(await limiter.consume(bucket));
    } catch (err) {
      for (const w of group) w.reject(err);
    }
  }

  const waiting = createKeyedTurnBatcher<string, Waiter>((groups) => {
    for (const [bucket, group] of groups) void take(bucket, group);
  });

  function consumeOne(bucket: string): Promise<RateLimitResult> {
    return new Promise((resolve, reject) => {
      waiting.add(bucket, { resolve, reject });
    });
  }

  return {
    quota,
    async consume(productId, environment) {
      const result = await consumeOne(publishQuotaBucket(productId, environment));
      const overSustained = result.allowed && result.count > soft;
      if (overSustained) opts.metrics.overSustained(productId, environment);
      return { policy, result, overSustained };
    },
  };
}
