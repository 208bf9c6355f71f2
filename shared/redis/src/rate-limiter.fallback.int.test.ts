import { type CapturedLogs, captureLogs, LEVEL, ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { rateLimitKey } from './keys.ts';
import { createFallbackRateLimiter } from './rate-limiter.fallback.ts';
import { createMemoryRateLimiter } from './rate-limiter.memory.ts';
import { createRedisRateLimiter } from './rate-limiter.redis.ts';
import type { FixedWindowPolicy } from './rate-limiter.ts';
import { closeRedis, createRedis } from './redis-client.ts';
import { CLOSED_REDIS_URL, TEST_REDIS_URL, useRedisTestSpace } from './testing/test-redis.ts';

const policy: FixedWindowPolicy = { name: 'per-ip', limit: 3, windowMs: 60_000 };
const WINDOW_START_MS = 1_700_000_040_000;

function setup(redis: Redis, keyPrefix: string, logs: CapturedLogs) {
  // A manual clock keeps the whole test inside one window however slow the machine is.
  const clock = new ManualClock(WINDOW_START_MS + 1_000);
  const fallbacks: string[] = [];
  const limiter = createFallbackRateLimiter({
    primary: createRedisRateLimiter({ redis, policy, clock, keyPrefix }),
    local: createMemoryRateLimiter({ policy, clock }),
    logger: logs.logger,
    countFallback: (name) => fallbacks.push(name),
    retryIntervalMs: 1_000,
    clock,
  });
  return { clock, fallbacks, limiter };
}

const degradedLines = (logs: CapturedLogs) =>
  logs.at(LEVEL.warn).filter((l) => l.msg.startsWith('rate limits degraded'));

describe('createFallbackRateLimiter (Redis)', () => {
  const space = useRedisTestSpace('fallback-test-admin', captureLogs().logger);
  let admin: Redis;
  let keyPrefix: string;
  beforeEach(() => {
    ({ redis: admin, prefix: keyPrefix } = space);
  });

  it('still limits, locally, when Redis cannot be reached at all', async () => {
    const logs = captureLogs();
    const redis = createRedis({ url: CLOSED_REDIS_URL, logger: logs.logger, name: 'unreachable' });
    try {
      const { limiter, fallbacks } = setup(redis, keyPrefix, logs);
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await limiter.consume('203.0.113.7'));
      expect(results.map((r) => r.allowed)).to.deep.equal([true, true, true, false, false]);
      expect(results[4]).to.deep.include({ count: 3, remaining: 0, retryAfterSeconds: 59 });
      expect(limiter.isDegraded()).to.equal(true);
      expect(fallbacks).to.deep.equal(Array(5).fill('per-ip'));
      expect(degradedLines(logs)).to.have.length(1);
    } finally {
      await closeRedis(redis);
    }
  });

  it('switches to local limits when the connection drops mid-way and back when it returns', async () => {
    const logs = captureLogs();
    const redis = createRedis({ url: TEST_REDIS_URL, logger: logs.logger, name: 'dropping' });
    const key = rateLimitKey(keyPrefix, 'per-ip', '203.0.113.7', WINDOW_START_MS);
    try {
      const { limiter, fallbacks, clock } = setup(redis, keyPrefix, logs);
      expect(await limiter.consume('203.0.113.7')).to.deep.include({ allowed: true, count: 1 });
      expect(await limiter.consume('203.0.113.7')).to.deep.include({ allowed: true, count: 2 });
      expect(await admin.get(key)).to.equal('2');
      expect(fallbacks).to.deep.equal([]);

      redis.disconnect();
      const during = [];
      for (let i = 0; i < 5; i++) during.push(await limiter.consume('203.0.113.7'));
      // The local limiter starts its own count, but it does limit: never a 500, never open.
      expect(during.map((r) => r.allowed)).to.deep.equal([true, true, true, false, false]);
      expect(limiter.isDegraded()).to.equal(true);
      expect(fallbacks).to.have.length(5);
      expect(degradedLines(logs)).to.have.length(1);
      expect(await admin.get(key)).to.equal('2');

      await redis.connect();
      clock.advance(1_000);
      expect(await limiter.consume('203.0.113.7')).to.deep.include({ allowed: true, count: 3 });
      expect(await limiter.consume('203.0.113.7')).to.deep.include({ allowed: false, count: 3 });
      expect(limiter.isDegraded()).to.equal(false);
      expect(fallbacks).to.have.length(5);
      const restored = logs.at(LEVEL.info).filter((l) => l.msg.startsWith('rate limits restored'));
      expect(restored).to.have.length(1);
      expect(restored[0]).to.deep.include({ servedLocally: 5 });
    } finally {
      await closeRedis(redis);
    }
  });
});
