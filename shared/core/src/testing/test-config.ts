// Test configuration: the test suite is a composition root, so this is one of the few places
// that reads process.env. Every test works in the `lattice_test` database on the configured
// server and uses unique names (uniqueName), so tests never see each other's topics, keys or
// products.
import { createHash } from 'node:crypto';
import { type ConfigOverrides, type LatticeConfig, loadConfig } from '../config.ts';

/**
 * `lattice_test`, or LATTICE_TEST_DATABASE: two checkouts whose migrations differ (parallel work
 * trees) each test in a database of their own on one server.
 */
export const TEST_DATABASE = process.env.LATTICE_TEST_DATABASE || 'lattice_test';

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/lattice';

/** DATABASE_URL (or the default) pointed at the test database. */
export function testDatabaseUrl(env: Record<string, string | undefined> = process.env): string {
  const url = new URL(env.DATABASE_URL || DEFAULT_DATABASE_URL);
  url.pathname = `/${TEST_DATABASE}`;
  return url.toString();
}

/**
 * The suite's LATTICE_SECRET_KEYS (unless the environment sets one): one keyring for every test
 * and every process a test starts, because what it seals in the shared test database is shared
 * too (the realtime signing keys are one per environment for the whole database). Fixed, so
 * that runs of the suite against one database agree; a test key, never a deployment's.
 */
export const TEST_SECRET_KEYS = `test:${createHash('sha256').update('lattice test keyring').digest('base64url')}`;

/** loadConfig for tests: the test database, quiet logs unless LOG_LEVEL says otherwise. */
export function testConfig(overrides: ConfigOverrides = {}): LatticeConfig {
  return loadConfig(process.env, {
    databaseUrl: testDatabaseUrl(),
    ...(process.env.LOG_LEVEL ? {} : { logLevel: 'warn' as const }),
    // Everything of a test runs in one process on a busy machine, where a 250 ms pause is no
    // outage: a limit answered locally after one would count from zero and fail exact counts.
    // Tests of the fallback itself make Redis unreachable or set their own timeout.
    rateLimitRedisTimeoutMs: 5000,
    secretKeys: process.env.LATTICE_SECRET_KEYS || TEST_SECRET_KEYS,
    ...overrides,
  });
}
