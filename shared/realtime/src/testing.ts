// Stand-ins for tests (`@lattice/realtime/testing`); production code composes the real ones.
import type { Environment } from '@lattice/core';
import type { PublishQuotaMetrics } from './http/publish-quota.ts';

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
