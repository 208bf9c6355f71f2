// Integration tests against the real Redis: where it is, an address that refuses at once, and
// cleanup of a test's key prefix (each test takes its own: `${uniqueName('label')}:`), and the
// hooks of a suite working under such prefixes.
import type { Logger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import type { Redis } from 'ioredis';
import { closeRedis, createRedis } from '../redis-client.ts';

/** The suite's Redis: REDIS_URL as the test configuration reads it (containers mode sets it). */
export const TEST_REDIS_URL = testConfig().redisUrl;
/** Nothing listens on port 1: connections are refused at once. */
export const CLOSED_REDIS_URL = 'redis://127.0.0.1:1';

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 }))
    keys.push(...(batch as string[]));
  if (keys.length > 0) await redis.del(...keys);
}

export interface RedisTestSpace {
  /** One connection to the test Redis for the suite, opened before its first test. */
  readonly redis: Redis;
  /** A fresh key prefix per test (`<label>-…:`); what a test writes under it is deleted after it. */
  readonly prefix: string;
}

/**
 * Registers the hooks of a suite that works in the test Redis: one connection for the suite, a
 * fresh key prefix per test, its keys deleted after the test, the connection closed at the end.
 */
export function useRedisTestSpace(name: string, logger: Logger): RedisTestSpace {
  let redis: Redis | undefined;
  let prefix = '';
  before(() => {
    redis = createRedis({ url: TEST_REDIS_URL, logger, name });
  });
  beforeEach(() => {
    prefix = `${uniqueName('lattice-test')}:`;
  });
  afterEach(async () => {
    if (redis) await deleteKeys(redis, prefix);
  });
  after(async () => {
    if (redis) await closeRedis(redis);
  });
  return {
    get redis() {
      if (!redis) throw new Error('the Redis test space is open only inside its suite');
      return redis;
    },
    get prefix() {
      return prefix;
    },
  };
}
