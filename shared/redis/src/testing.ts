// Test support (`@lattice/redis/testing`), never imported by production code: the test Redis,
// a TCP proxy to cut it for real, and the RateLimiter conformance suite every implementation runs.
export type { RateLimiterFactory } from './testing/rate-limiter-conformance.ts';
export { describeRateLimiter } from './testing/rate-limiter-conformance.ts';
export type { TcpProxy } from './testing/tcp-proxy.ts';
export { startTcpProxy } from './testing/tcp-proxy.ts';
export type { RedisTestSpace } from './testing/test-redis.ts';
export { CLOSED_REDIS_URL, deleteKeys, TEST_REDIS_URL, useRedisTestSpace } from './testing/test-redis.ts';
