export { boundedCall } from './call-timeout.ts';
export {
  fanOutChannel,
  fanOutChannelPattern,
  keyChangesChannel,
  partitionPlanKeys,
  presenceResultChannel,
  presenceResultPattern,
  realtimeIdempotencyKeys,
} from './keys.ts';
export type { StoredPartitionPlan } from './partition-plan-store.redis.ts';
export { createRedisPartitionPlanStore } from './partition-plan-store.redis.ts';
export type { RateLimitOutcome } from './rate-limit-headers.ts';
export { rateLimitHeaders, singlePolicyHeaders } from './rate-limit-headers.ts';
export type { FallbackRateLimiter } from './rate-limiter.fallback.ts';
export { createFallbackRateLimiter } from './rate-limiter.fallback.ts';
export { createLeasedRateLimiter } from './rate-limiter.leased.ts';
export { createMemoryRateLimiter } from './rate-limiter.memory.ts';
export { createRedisRateLimiter } from './rate-limiter.redis.ts';
export type { FixedWindowPolicy, RateLimiter, RateLimitResult } from './rate-limiter.ts';
export { closeRedis, createRedis } from './redis-client.ts';
export { runScript } from './scripts.ts';
export { afterHandshake, subscribeChannels, subscribePatterns } from './subscribe.ts';
