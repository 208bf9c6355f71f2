// Toolkits serve the public routes of PUBLIC_ROUTES by binding handlers to their operationIds.
// The edge calls a route's runner once the per-IP limit, the route match and (on keyed routes)
// the key check have passed and the key headers are gone; the runner then does what the
// management router does for its routes, with the same pieces: the body (route cap; JSON, or a
// form where the route says so), validation of params, query and body against the route's
// schemas (the very compiled validators the management API uses), the handler, and the answer.
// A route no toolkit serves answers 501 before its body is read.
import type { Environment } from '@lattice/core';
import type { Request, Response } from 'express';
import { HTTP_ERRORS } from './http-errors.ts';
import { PUBLIC_ROUTES, type PublicRoute } from './public-routes.ts';
import { bodyReader, hasBody } from './request-body.ts';
import type { RequestParts, RouteResult } from './route-def.ts';
import type { SchemaRegistry } from './schema-registry.ts';
import { sendResult } from './send-result.ts';
import { checkRequest, routeValidators } from './validation.ts';

export interface PublicRouteContext extends RequestParts {
  /** The edge's environment: realtime tokens, for one, are signed per environment. */
  environment: Environment;
  productId: string;
  route: PublicRoute;
  /** Id of the public key that opened a keyed route; null on keyless routes. */
  keyId: string | null;
}

export type PublicHandler = (ctx: PublicRouteContext) => Promise<RouteResult> | RouteResult;

/** A toolkit's handlers by the operationId of their public route. */
export type PublicHandlers = Readonly<Record<string, PublicHandler>>;

export interface PublicRouteInput {
  environment: Environment;
  productId: string;
  /** As the matcher decoded them. */
  params: Record<string, string>;
  keyId: string | null;
  req: Request;
  res: Response;
}

/**
 * Runs one request of one route through to its answer; refusals throw or reject with an
 * ApiError. Synchronous when nothing had to wait.
 */
export type PublicRouteRunner = (input: PublicRouteInput) => void | Promise<void>;

export interface PublicRoutes {
  /** `route` must be an entry of the table the runners were built from. */
  runnerFor(route: PublicRoute): PublicRouteRunner;
}

const notImplemented: PublicRouteRunner = () => Promise.reject(HTTP_ERRORS.notImplemented());

/**
 * Runners for every route of `routes`, from the toolkits' handlers. Throws at startup when a
 * handler names no route, or two toolkits bind one route.
 */
export function bindPublicRoutes(
  handlerSets: readonly PublicHandlers[],
  schemas: SchemaRegistry,
  routes: readonly PublicRoute[] = PUBLIC_ROUTES,
): PublicRoutes {
  const byOperation = new Map(routes.map((r) => [r.operationId, r]));
  const runners = new Map<PublicRoute, PublicRouteRunner>();
  for (const handlers of handlerSets) {
    for (const [operationId, handler] of Object.entries(handlers)) {
      const route = byOperation.get(operationId);
      if (!route) throw new Error(`handler "${operationId}" names no public route`);
      if (runners.has(route)) throw new Error(`public route "${operationId}" has two handlers`);
      runners.set(route, runnerOf(route, handler, schemas));
    }
  }
  // Keyed by the route objects themselves: the matcher hands back these very objects, so the
  // per-request lookup is one identity hash.
  return { runnerFor: (route) => runners.get(route) ?? notImplemented };
}

function runnerOf(route: PublicRoute, handler: PublicHandler, schemas: SchemaRegistry): PublicRouteRunner {
  const validators = routeValidators(route, schemas);
  const takesBody = route.request?.body !== undefined;
  const form = takesBody && route.bodyType === 'form';
  const readBody = bodyReader({ json: takesBody && !form, form, limitBytes: route.bodyLimitBytes });

  function answer(input: PublicRouteInput, body: unknown): void | Promise<void> {
    const { req, res } = input;
    // req.query is parsed on every read (express 5): read once, and only when there is one.
    const query = req.url.includes('?') ? (req.query as Record<string, unknown>) : {};
    const parts = { params: input.params as Record<string, unknown>, query, body };
    checkRequest(validators, parts);
    const ctx: PublicRouteContext = {
      environment: input.environment,
      productId: input.productId,
      route,
      keyId: input.keyId,
      req,
      res,
      ...parts,
    };
    const result = handler(ctx);
    if (result instanceof Promise) return result.then((r) => sendResult(res, r));
    sendResult(res, result);
  }

  // Without a body nothing waits for the socket: the request is answered in this turn when the
  // handler answers synchronously (no promise on the edge's hot GET path).
  return (input) => {
    if (!hasBody(input.req)) return answer(input, takesBody ? {} : undefined);
    return readBody(input.req, input.res).then((body) => answer(input, body));
  };
}
