import { createLogger } from '@lattice/core';
import { ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { rateLimitKey } from './keys.ts';
import { createRedisRateLimiter } from './rate-limiter.redis.ts';
import { closeRedis, createRedis } from './redis-client.ts';
import { describeRateLimiter } from './testing/rate-limiter-conformance.ts';
import { TEST_REDIS_URL, useRedisTestSpace } from './testing/test-redis.ts';

const logger = createLogger({ name: 'rate-limiter-redis-test', level: 'silent' });

describe('createRedisRateLimiter (Redis)', () => {
  const space = useRedisTestSpace('rate-limiter-test', logger);
  let redis: Redis;
  let keyPrefix: string;

  beforeEach(() => {
    ({ redis, prefix: keyPrefix } = space);
  });

  describeRateLimiter('redis', ({ policy, clock }) =>
    createRedisRateLimiter({ redis, policy, clock, keyPrefix }),
  );

  it('stores one expiring counter per bucket and window under the prefix', async () => {
    const policy = { name: 'per-ip', limit: 10, windowMs: 60_000 };
    const clock = new ManualClock(1_700_000_040_000 + 15_000);
    const limiter = createRedisRateLimiter({ redis, policy, clock, keyPrefix, expiryGraceMs: 5_000 });
    await limiter.consume('203.0.113.7', 3);
    const key = rateLimitKey(keyPrefix, 'per-ip', '203.0.113.7', 1_700_000_040_000);
    expect(await redis.get(key)).to.equal('3');
    const ttlMs = await redis.pttl(key);
    // The window ends in 45 s; the key outlives it by the grace.
    expect(ttlMs).to.be.within(49_000, 50_000);
  });

  it('shares one count between edge nodes with their own connections', async () => {
    const policy = { name: 'publish', limit: 5, windowMs: 10_000 };
    const clock = new ManualClock(1_700_000_000_000);
    const other = createRedis({ url: TEST_REDIS_URL, logger, name: 'rate-limiter-test-2' });
    try {
      const nodes = [redis, other].map((r) => createRedisRateLimiter({ redis: r, policy, clock, keyPrefix }));
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => nodes[i % 2]!.consume('prd_1')));
      expect(results.filter((r) => r.allowed)).to.have.length(5);
      expect(
        results
          .map((r) => r.count)
          .sort((a, b) => a - b)
          .at(-1),
      ).to.equal(5);
    } finally {
      await closeRedis(other);
    }
  });
});
