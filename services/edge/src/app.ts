// Composition of one public edge (one environment): express with the edge pipeline and the
// error mapping. Everything comes in through `deps`; nothing here reads the environment
// variables, opens connections or starts timers (startEdge does, in server.ts).
import type { Clock, Environment, Logger } from '@lattice/core';
import {
  bindPublicRoutes,
  errorMiddleware,
  loadSchemaRegistry,
  type PublicHandlers,
  type SchemaRegistry,
} from '@lattice/http';
import type { RateLimiter } from '@lattice/redis';
import express, { type Express } from 'express';
import type { EdgeMetrics } from './edge-metrics.ts';
import { edgePipeline } from './edge-pipeline.ts';
import type { KeySnapshotSource } from './key-snapshot-source.ts';
import { perIpBucketOf } from './per-ip-limit.ts';
import { createRouteMatcher } from './route-matcher.ts';
import { parseTrustProxy } from './trust-proxy.ts';

export interface EdgeAppDeps {
  environment: Environment;
  snapshots: KeySnapshotSource;
  /** The per-IP limiter (createPerIpLimiter). */
  limiter: RateLimiter;
  /** The toolkits' public handlers (e.g. realtimeToolkit(...)); routes none serves answer 501. */
  toolkits: readonly PublicHandlers[];
  /** Default: the schemas of schemas/http, shared with the management API in one process. */
  schemas?: SchemaRegistry;
  logger: Logger;
  /** config.trustProxy: which proxies' X-Forwarded-For decides the client address. */
  trustProxy: string;
  /** config.snapshotRefreshMs: a revoked key answers 403 this long, then 401. */
  revokedGraceMs: number;
  metrics: EdgeMetrics;
  clock: Clock;
}

export function createEdgeApp(deps: EdgeAppDeps): Express {
  const logger = deps.logger.child({ component: 'edge', environment: deps.environment });
  const app = express();
  app.disable('x-powered-by');
  // Answers are per request and never cached; hashing every body for an ETag is wasted work.
  app.set('etag', false);
  const trustProxy = parseTrustProxy(deps.trustProxy);
  app.set('trust proxy', trustProxy);
  // Flat query strings only, as on the management API: nested `a[b]=` syntax would bypass the
  // query schemas' shape.
  app.set('query parser', 'simple');

  // Readiness for load balancers: outside the product paths, not rate limited, and the same
  // on both environments (it says whether a key snapshot is loaded, nothing else).
  app.get('/healthz', (_req, res) => {
    const ready = deps.snapshots.current() !== null;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'no_key_snapshot' });
  });
  app.use(
    edgePipeline({
      environment: deps.environment,
      snapshots: deps.snapshots,
      limiter: deps.limiter,
      matcher: createRouteMatcher(),
      routes: bindPublicRoutes(deps.toolkits, deps.schemas ?? loadSchemaRegistry()),
      metrics: deps.metrics,
      clock: deps.clock,
      revokedGraceMs: deps.revokedGraceMs,
      bucketOf: perIpBucketOf(deps.environment, trustProxy !== false && trustProxy !== 0),
      logger,
    }),
  );
  // Errors become the platform's bodies through the one mapping of @lattice/http.
  app.use(errorMiddleware(logger, { logApiErrors: false, headers: { 'Cache-Control': 'no-store' } }));
  return app;
}
