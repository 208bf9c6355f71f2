// Metrics of the realtime HTTP services that both surfaces publish through (prom-client). One
// runtime serves the edges and management of a process, but tests and benchmarks may start
// several on one registry, so each metric is created once per registry. Labels are bounded:
// the environment only (product ids are not, and stay in the logs).
import type { Environment } from '@lattice/core';
import { Counter, type Registry } from 'prom-client';
import type { PublishQuotaMetrics } from './publish-quota.ts';

function counterOn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return (
    (registry.getSingleMetric(name) as Counter<L> | undefined) ??
    new Counter({ name, help, labelNames, registers: [registry] })
  );
}

export function realtimeHttpMetrics(registry: Registry): PublishQuotaMetrics {
  const fallbacks = counterOn(
    registry,
    'lattice_realtime_publish_quota_fallbacks_total',
    'Publish quota counts answered by the in-process limiter because Redis was unavailable or slow',
    [],
  );
  const overSustained = counterOn<'environment'>(
    registry,
    'lattice_realtime_publishes_over_sustained_total',
    'Publishes accepted beyond the sustained rate plus burst of their quota window (the hard limit not reached)',
    ['environment'],
  );
  return {
    fallback: () => fallbacks.inc(),
    overSustained: (_productId: string, environment: Environment) => overSustained.inc({ environment }),
  };
}
