export type { IdempotencyKeys, RealtimeChannelRef } from './keys.ts';
export {
  assertKeyPrefix,
  DEFAULT_KEY_PREFIX,
  fanOutChannel,
  fanOutChannelPattern,
  keyChangesChannel,
  presenceResultChannel,
  presenceResultPattern,
  rateLimitKey,
  realtimeIdempotencyKeys,
} from './keys.ts';
export type { RateLimitOutcome } from './rate-limit-headers.ts';
export {
  rateLimitHeader,
  rateLimitHeaders,
  rateLimitPolicyHeader,
  retryAfterHeader,
  singlePolicyHeaders,
} from './rate-limit-headers.ts';
export type { FallbackRateLimiter, FallbackRateLimiterOptions } from './rate-limiter.fallback.ts';
export { createFallbackRateLimiter } from './rate-limiter.fallback.ts';
export type { LeasedRateLimiter, LeasedRateLimiterOptions } from './rate-limiter.leased.ts';
export { createLeasedRateLimiter } from './rate-limiter.leased.ts';
export type { MemoryRateLimiter, MemoryRateLimiterOptions } from './rate-limiter.memory.ts';
export { createMemoryRateLimiter } from './rate-limiter.memory.ts';
export type { RedisRateLimiterOptions } from './rate-limiter.redis.ts';
export { createRedisRateLimiter } from './rate-limiter.redis.ts';
export type { FixedWindowPolicy, RateLimiter, RateLimitResult } from './rate-limiter.ts';
export type { CreateRedisOptions } from './redis-client.ts';
export { closeRedis, createRedis } from './redis-client.ts';
export type { ScriptArg, ScriptDefinition } from './scripts.ts';
export { defineScripts, loadScripts, runScript } from './scripts.ts';
