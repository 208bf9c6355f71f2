// The edge's per-IP limit (spec "Limits": 100 requests per minute per IP address), counted in
// Redis so every edge node shares one count, with the in-process limiter answering while Redis
// is unavailable (DESIGN principle 5: never a 5xx, never an open door).
//
// Each environment counts separately (the bucket id carries it): the two edges are separate
// deployments, and development traffic must not eat production's allowance. The policy name in
// the headers is the same for both, so the headers do not tell the environments apart.
import type { Clock, Environment, Logger } from '@lattice/core';
import {
  createFallbackRateLimiter,
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type FallbackRateLimiter,
  type FixedWindowPolicy,
} from '@lattice/redis';
import type { Redis } from 'ioredis';
import type { EdgeMetrics } from './edge-metrics.ts';

export const PER_IP_POLICY_NAME = 'per-ip';

export function perIpPolicy(requestsPerMinute: number): FixedWindowPolicy {
  return { name: PER_IP_POLICY_NAME, limit: requestsPerMinute, windowMs: 60_000 };
}

export interface PerIpLimiterOptions {
  redis: Redis;
  requestsPerMinute: number;
  /** config.redisKeyPrefix. */
  keyPrefix: string;
  logger: Logger;
  metrics?: EdgeMetrics;
  clock?: Clock;
}

export function createPerIpLimiter(opts: PerIpLimiterOptions): FallbackRateLimiter {
  const policy = perIpPolicy(opts.requestsPerMinute);
  const clock = opts.clock ? { clock: opts.clock } : {};
  return createFallbackRateLimiter({
    primary: createRedisRateLimiter({ redis: opts.redis, policy, keyPrefix: opts.keyPrefix, ...clock }),
    local: createMemoryRateLimiter({ policy, ...clock }),
    logger: opts.logger,
    ...(opts.metrics ? { countFallback: opts.metrics.rateLimitFallback } : {}),
    ...clock,
  });
}

/** The bucket of one client address in one environment. */
export function perIpBucket(environment: Environment, ip: string): string {
  return `${environment}:${ip}`;
}
