// The public edge's request pipeline, in this order (docs/public-edge.md):
//   1 per-IP limit (Redis, local fallback)   every request under the edge counts, even a 404,
//                                             so scanning for routes costs the scanner too
//   2 route match against PUBLIC_ROUTES       unknown path 404, known path + wrong method 405
//   3 take the key headers out                the toolkit never sees a credential
//   4 public key check (keyed routes only)    in-memory snapshot, against the headers taken
//   5 the route's runner                      body, validation, the toolkit's handler (501 until a
//                                             toolkit serves the route): @lattice/http bindPublicRoutes
// Before step 1 the request gets its id (X-Request-Id, @lattice/http request-id.ts): answered in
// X-Request-Id, named in the request log line (info) and in the records the toolkits produce.
// It is one middleware rather than five so the hot path pays for one express layer, and it stays
// synchronous when the limiter can answer without I/O (a leased unit, see per-ip-limit.ts): no
// promise, closure or per-request header formatting beyond the `RateLimit` value. Refusals are
// thrown; express hands a synchronous throw and a rejected promise alike to the error handler.
import type { ApiError, Clock, Environment, Logger } from '@lattice/core';
import {
  logRequestWhenDone,
  type PublicRoutes,
  REQUEST_ID_HEADER,
  requestIdFrom,
  setRequestId,
} from '@lattice/http';
import { checkPublicKey, readPresentedKey } from '@lattice/keys';
import {
  type FixedWindowPolicy,
  type RateLimiter,
  type RateLimitResult,
  singlePolicyHeaders,
} from '@lattice/redis';
import type { Request, RequestHandler, Response } from 'express';
import { type ConnectionKeyCache, createConnectionKeyCache } from './connection-key-cache.ts';
import { EDGE_ERRORS } from './edge-errors.ts';
import type { EdgeMetrics } from './edge-metrics.ts';
import { takeKeyHeaders } from './key-headers.ts';
import type { KeySnapshotSource } from './key-snapshot-source.ts';
import { splitPublicPath } from './public-path.ts';
import type { RouteMatcher } from './route-matcher.ts';
import { setTrustedField } from './trusted-fields.ts';

export interface EdgePipelineDeps {
  environment: Environment;
  snapshots: KeySnapshotSource;
  limiter: RateLimiter;
  matcher: RouteMatcher;
  /** The public routes with their toolkits' handlers (bindPublicRoutes). */
  routes: PublicRoutes;
  metrics: EdgeMetrics;
  clock: Clock;
  /** How long a revoked key answers 403 before 401: one snapshot window. */
  revokedGraceMs: number;
  /** The per-IP limit's bucket of a request (perIpBucketOf). */
  bucketOf: (req: Request) => string;
  /** Finds the key for a presented value; default: createConnectionKeyCache(). */
  keyCache?: ConnectionKeyCache;
  /** Where the request lines go (info); above info nothing per request is logged. */
  logger: Logger;
}

/**
 * The `RateLimit` value of a result, from a table of the values already built when the policy is
 * small enough (remaining 0..limit by 0..window seconds: 101 × 61 strings for the spec's per-IP
 * limit), so a request formats nothing; built every time otherwise.
 */
function cachedRateLimitValue(
  policy: FixedWindowPolicy,
  build: (result: RateLimitResult) => string,
): (result: RateLimitResult) => string {
  const maxSeconds = Math.max(1, Math.ceil(policy.windowMs / 1000));
  const columns = maxSeconds + 1;
  if ((policy.limit + 1) * columns > 100_000) return build;
  const table: Array<string | undefined> = [];
  return (result) => {
    const { remaining, retryAfterSeconds: seconds } = result;
    if (
      !(Number.isInteger(remaining) && remaining >= 0 && remaining <= policy.limit) ||
      !(Number.isInteger(seconds) && seconds >= 0 && seconds <= maxSeconds)
    ) {
      return build(result);
    }
    const index = remaining * columns + seconds;
    let value = table[index];
    if (value === undefined) {
      value = build(result);
      table[index] = value;
    }
    return value;
  };
}

export function edgePipeline(deps: EdgePipelineDeps): RequestHandler {
  const { environment, snapshots, limiter, matcher, routes, metrics, clock, revokedGraceMs } = deps;
  const { bucketOf } = deps;
  const findKey = (deps.keyCache ?? createConnectionKeyCache()).find;
  const headers = singlePolicyHeaders(limiter.policy);
  const rateLimitValue = cachedRateLimitValue(limiter.policy, headers.rateLimit);
  const tryConsume = limiter.tryConsume?.bind(limiter);

  function refuse(error: ApiError): never {
    metrics.requestOutcome(error.code);
    throw error;
  }

  /** Steps 2 to 5, once the limit has answered. */
  function afterLimit(req: Request, res: Response, result: RateLimitResult): void | Promise<void> {
    // Lower-case names (field names are case-insensitive; HTTP/2 and 3 send only these), set
    // without setHeader's checks: both values are built here and valid (trusted-fields.ts).
    setTrustedField(res, 'ratelimit-policy', headers.policy);
    setTrustedField(res, 'ratelimit', rateLimitValue(result));
    if (!result.allowed) refuse(EDGE_ERRORS.rateLimited(String(result.retryAfterSeconds)));

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
    res.locals.operationId = match.route.operationId;

    // Taken out before the check, keyless routes included: a credential sent to a keyless
    // route is stripped all the same, and a refused request goes no further anyway.
    const keyHeaders = takeKeyHeaders(req);
    let keyId: string | null = null;
    if (match.route.keyed) {
      const check = checkPublicKey(
        {
          snapshot: snapshots.current(),
          presented: readPresentedKey(keyHeaders),
          productId: target.productId,
          route: match.route,
          clock,
          revokedGraceMs,
          connection: req.socket,
        },
        findKey,
      );
      if (!check.ok) refuse(check.error);
      keyId = check.key.id;
    }
    metrics.requestOutcome('passed');
    return routes.runnerFor(match.route)({
      environment,
      productId: target.productId,
      params: match.params,
      keyId,
      req,
      res,
    });
  }

  const log = deps.logger;
  return (req, res) => {
    // A validated caller's id is visible ASCII and spaces: a valid field value as it stands.
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    setRequestId(res, requestId);
    setTrustedField(res, REQUEST_ID_HEADER, requestId);
    if (log.isLevelEnabled('info')) logRequestWhenDone(log, req, res, requestId, { pathWhenMatched: false });
    const bucket = bucketOf(req);
    const known = tryConsume?.(bucket, 1);
    if (known !== undefined) return afterLimit(req, res, known);
    return limiter.consume(bucket, 1).then((result) => afterLimit(req, res, result));
  };
}
