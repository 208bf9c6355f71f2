// Test configuration: the harness is a composition root, so this is one of the few places that
// reads process.env. Every test works in the `lattice_test` database on the configured server
// and uses unique names, so tests never see each other's topics, keys or products.
import { randomBytes } from 'node:crypto';
import { type ConfigOverrides, type LatticeConfig, loadConfig } from '@lattice/core';

export const TEST_DATABASE = 'lattice_test';

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/lattice';

/** DATABASE_URL (or the default) pointed at the test database. */
export function testDatabaseUrl(env: Record<string, string | undefined> = process.env): string {
  const url = new URL(env.DATABASE_URL || DEFAULT_DATABASE_URL);
  url.pathname = `/${TEST_DATABASE}`;
  return url.toString();
}

/** loadConfig for tests: the test database, quiet logs unless LOG_LEVEL says otherwise. */
export function testConfig(overrides: ConfigOverrides = {}): LatticeConfig {
  return loadConfig(process.env, {
    databaseUrl: testDatabaseUrl(),
    ...(process.env.LOG_LEVEL ? {} : { logLevel: 'warn' as const }),
    // Everything of a test runs in one process on a busy machine, where a 250 ms pause is no
    // outage: a limit answered locally after one would count from zero and fail exact counts.
    // Tests of the fallback itself make Redis unreachable or set their own timeout.
    rateLimitRedisTimeoutMs: 5000,
    ...overrides,
  });
}

let counter = 0;

/**
 * A name no other test, run or process uses: valid as a Kafka topic (letters, digits, . _ -),
 * a Redis key part and a product name. Lowercase, prefix first so logs stay readable.
 */
export function uniqueName(prefix: string): string {
  counter += 1;
  const parts = [
    prefix,
    process.pid.toString(36),
    Date.now().toString(36),
    counter.toString(36),
    randomBytes(3).toString('hex'),
  ];
  return parts.join('-').toLowerCase();
}
