// Integration tests against the real Redis: where it is, an address that refuses at once, and
// cleanup of a test's key prefix (each test takes its own: `${uniqueName('label')}:`).
import type { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Nothing listens on port 1: connections are refused at once. */
export const CLOSED_REDIS_URL = 'redis://127.0.0.1:1';

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 }))
    keys.push(...(batch as string[]));
  if (keys.length > 0) await redis.del(...keys);
}
