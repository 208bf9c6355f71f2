// The public edge's request pipeline, in this order (docs/public-edge.md):
//   1 per-IP limit (Redis, local fallback)   every request under the edge counts, even a 404,
//                                             so scanning for routes costs the scanner too
//   2 route match against PUBLIC_ROUTES       unknown path 404, known path + wrong method 405
//   3 public key check (keyed routes only)    in-memory snapshot; keyless routes read no key
//   4 strip the key headers                   the toolkit never sees a credential
//   5 the toolkit's handler                   501 until a toolkit registers one
// It is one middleware rather than five so the hot path pays for one express layer.
import type { ApiError, Clock, Environment } from '@lattice/core';
import { checkPublicKey, readPresentedKey } from '@lattice/keys';
import { type RateLimiter, rateLimitHeader, rateLimitPolicyHeader, retryAfterHeader } from '@lattice/redis';
import type { RequestHandler } from 'express';
import { EDGE_ERRORS } from './edge-errors.ts';
import type { EdgeMetrics } from './edge-metrics.ts';
import { stripKeyHeadersFrom } from './key-headers.ts';
import type { KeySnapshotSource } from './key-snapshot-source.ts';
import { perIpBucket } from './per-ip-limit.ts';
import { splitPublicPath } from './public-path.ts';
import type { RouteMatcher } from './route-matcher.ts';
import type { ToolkitRegistry } from './toolkit-registry.ts';

export interface EdgePipelineDeps {
  environment: Environment;
  snapshots: KeySnapshotSource;
  limiter: RateLimiter;
  matcher: RouteMatcher;
  toolkits: ToolkitRegistry;
  metrics: EdgeMetrics;
  clock: Clock;
  /** How long a revoked key answers 403 before 401: one snapshot window. */
  revokedGraceMs: number;
}

export function edgePipeline(deps: EdgePipelineDeps): RequestHandler {
  const { environment, snapshots, limiter, matcher, toolkits, metrics, clock, revokedGraceMs } = deps;
  const policy = limiter.policy;
  let policyHeader: string | undefined;

  function refuse(error: ApiError): never {
    metrics.requestOutcome(error.code);
    throw error;
  }

  return async (req, res) => {
    // req.ip follows `trust proxy`; it is undefined only for a socket already gone.
    const result = await limiter.consume(perIpBucket(environment, req.ip ?? 'unknown'));
    const outcomes = [{ policy, result }];
    policyHeader ??= rateLimitPolicyHeader(outcomes);
    res.setHeader('RateLimit-Policy', policyHeader);
    res.setHeader('RateLimit', rateLimitHeader(outcomes));
    if (!result.allowed) refuse(EDGE_ERRORS.rateLimited(retryAfterHeader(outcomes) ?? '1'));

    let target: ReturnType<typeof splitPublicPath>;
    try {
      target = splitPublicPath(req.path);
    } catch {
      refuse(EDGE_ERRORS.malformedPath());
    }
    if (!target) refuse(EDGE_ERRORS.notFound());
    const match = matcher.resolve(target.toolkit, req.method, target.subPath);
    if (match.kind === 'none') refuse(EDGE_ERRORS.notFound());
    if (match.kind === 'method') refuse(EDGE_ERRORS.methodNotAllowed(req.method, match.allow));
    if (match.kind === 'malformed') refuse(EDGE_ERRORS.malformedPath());

    let keyId: string | null = null;
    if (match.route.keyed) {
      const check = checkPublicKey({
        snapshot: snapshots.current(),
        presented: readPresentedKey(req.headers),
        productId: target.productId,
        route: match.route,
        nowMs: clock.nowMs(),
        revokedGraceMs,
      });
      if (!check.ok) refuse(check.error);
      keyId = check.key.id;
    }
    // Keyless routes read no key, but a credential sent to them is stripped all the same.
    stripKeyHeadersFrom(req);
    metrics.requestOutcome('passed');
    await toolkits.handlerFor(match.route)({
      environment,
      productId: target.productId,
      route: match.route,
      params: match.params,
      keyId,
      req,
      res,
    });
  };
}
