// The edge's per-IP limit (spec "Limits": 100 requests per minute per IP address), counted in
// Redis so every edge node shares one count, with the in-process limiter answering while Redis
// is unavailable (DESIGN principle 5: never a 5xx, never an open door).
//
// The count is kept by LEASING (createLeasedRateLimiter): a node takes a share of an address's
// remaining allowance from Redis and admits that address's requests locally until the share is
// used, so most requests cost no Redis round trip, while the nodes together never admit more than
// the limit and one node alone refuses exactly the 101st request (docs/public-edge.md).
//
// Each environment counts separately (the bucket id carries it): the two edges are separate
// deployments, and development traffic must not eat production's allowance. The policy name in
// the headers is the same for both, so the headers do not tell the environments apart.
import type { Clock, Environment, Logger } from '@lattice/core';
import {
  createFallbackRateLimiter,
  createLeasedRateLimiter,
  createMemoryRateLimiter,
  type FallbackRateLimiter,
  type FixedWindowPolicy,
} from '@lattice/redis';
import type { Request } from 'express';
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
  /** Counts the answers of the local limiter (rateLimitFallback). */
  metrics: EdgeMetrics;
  clock?: Clock;
  /** config.rateLimitRedisTimeoutMs: how long a lease request may take. Default 250. */
  redisTimeoutMs?: number;
}

export function createPerIpLimiter(opts: PerIpLimiterOptions): FallbackRateLimiter {
  const policy = perIpPolicy(opts.requestsPerMinute);
  const clock = opts.clock ? { clock: opts.clock } : {};
  return createFallbackRateLimiter({
    // The leased limiter bounds its own lease requests (redisTimeoutMs), and most calls never
    // wait for Redis: no timer per call here.
    primary: createLeasedRateLimiter({
      redis: opts.redis,
      policy,
      keyPrefix: opts.keyPrefix,
      ...(opts.redisTimeoutMs === undefined ? {} : { timeoutMs: opts.redisTimeoutMs }),
      ...clock,
    }),
    local: createMemoryRateLimiter({ policy, ...clock }),
    timeoutMs: 0,
    logger: opts.logger,
    countFallback: opts.metrics.rateLimitFallback,
    ...clock,
  });
}

/** The bucket of one client address in one environment. */
export function perIpBucket(environment: Environment, ip: string): string {
  return `${environment}:${ip}`;
}

/**
 * The bucket of a request. Trusting no proxy, the address is the socket's, the same for every
 * request of a connection: its bucket is built once per connection (and the string, reused,
 * keeps its hash for the limiter's map). Behind a trusted proxy it is express's `req.ip`, read
 * per request from X-Forwarded-For. A socket already gone counts as `unknown`.
 */
export function perIpBucketOf(environment: Environment, trustsProxy: boolean): (req: Request) => string {
  if (trustsProxy) return (req) => perIpBucket(environment, req.ip ?? 'unknown');
  const byConnection = new WeakMap<object, string>();
  return (req) => {
    let bucket = byConnection.get(req.socket);
    if (bucket === undefined) {
      bucket = perIpBucket(environment, req.socket.remoteAddress ?? 'unknown');
      byConnection.set(req.socket, bucket);
    }
    return bucket;
  };
}
