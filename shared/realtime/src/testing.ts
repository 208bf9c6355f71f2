// Stand-ins for tests (`@lattice/realtime/testing`); production code composes the real ones.
import { type Clock, type Environment, type Logger, type SecretKeyring, systemClock } from '@lattice/core';
import type { Knex } from 'knex';
import { POLICY_CACHE_TTL_MS } from './channel/policy-cache.ts';
import { UNCONFIGURED_MESSAGE_PUBLISHER } from './http/message-publisher.ts';
import { DEFAULT_PUBLISH_QUOTA, type PublishQuotaMetrics } from './http/publish-quota.ts';
import { composeRealtimeHttp, type RealtimeHttp } from './http/realtime-http.ts';

/** Quota metrics that count nothing. */
export const NO_PUBLISH_QUOTA_METRICS: PublishQuotaMetrics = {
  fallback: () => {},
  overSustained: () => {},
};

/** Quota metrics that remember what they were told, for assertions. */
export function recordingPublishQuotaMetrics(): {
  metrics: PublishQuotaMetrics;
  seen: { fallbacks: number; overSustained: Array<{ productId: string; environment: Environment }> };
} {
  const seen = { fallbacks: 0, overSustained: [] as Array<{ productId: string; environment: Environment }> };
  return {
    seen,
    metrics: {
      fallback: () => {
        seen.fallbacks += 1;
      },
      overSustained: (productId, environment) => {
        seen.overSustained.push({ productId, environment });
      },
    },
  };
}

/**
 * The realtime services over `db` with no Redis or Kafka: tokens and reads work, every publish
 * is validated and then answered 503 (management tests that never publish).
 */
export function createRealtimeHttpWithoutPublishing(deps: {
  db: Knex;
  logger: Logger;
  /** Seals and opens the token signing keys. */
  keyring: SecretKeyring;
  gatewayUrls: Record<Environment, string>;
  clock?: Clock;
}): RealtimeHttp {
  return composeRealtimeHttp(
    {
      db: deps.db,
      logger: deps.logger,
      keyring: deps.keyring,
      gatewayUrls: deps.gatewayUrls,
      policyCacheTtlMs: POLICY_CACHE_TTL_MS,
      clock: deps.clock ?? systemClock,
    },
    () => UNCONFIGURED_MESSAGE_PUBLISHER,
    DEFAULT_PUBLISH_QUOTA,
  );
}
