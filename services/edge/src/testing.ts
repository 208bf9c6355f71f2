// Stand-ins for tests and benchmark breakdowns (`@lattice/edge/testing`); the edge role
// always counts on the registry it is given.
import type { EdgeMetrics } from './edge-metrics.ts';

/** Metrics that count nothing: unit tests of parts, the benchmark's bare pipeline row. */
export const NO_EDGE_METRICS: EdgeMetrics = {
  snapshotReloaded: () => {},
  snapshotReloadFailed: () => {},
  requestOutcome: () => {},
  rateLimitFallback: () => {},
  watchSnapshot: () => () => {},
};
