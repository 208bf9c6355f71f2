// Route table → express Router. Each route runs the same pipeline:
//   authenticate (headers only, so unauthenticated callers never make us read a body)
//   → body (cap, JSON only) → validate params, query, body → handler → send.
// Failures anywhere go to the single error middleware at the end.
import { ApiError, type Logger } from '@lattice/core';
import express, { type ErrorRequestHandler, type RequestHandler, type Response, type Router } from 'express';
import { clientErrorOf, errorMiddleware, internalError } from './error-mapping.ts';
import { fallbackMiddleware } from './fallback.ts';
import { HTTP_ERRORS } from './http-errors.ts';
import { bodyMiddleware } from './request-body.ts';
import type { Authenticator, AuthKind, Principal, RouteContext, RouteDef } from './route-def.ts';
import { isDeclaredAnswer } from './route-errors.ts';
import { checkRouteTable } from './route-table-check.ts';
import type { SchemaRegistry } from './schema-registry.ts';
import { sendResult } from './send-result.ts';
import { check, checkRequest, compileRouteValidators, type RouteValidators } from './validation.ts';

export interface RouterDeps {
  schemas: SchemaRegistry;
  logger: Logger;
  /** One authenticator per auth kind the routes use; a missing one fails the build, not a request. */
  authenticators: Partial<Record<Exclude<AuthKind, 'none'>, Authenticator>>;
  /**
   * Decides whether an authenticated caller may use the route (throws an ApiError when not).
   * Runs before the body is read, so a refused caller never makes us parse one.
   */
  authorize?: (principal: Principal, route: RouteDef) => void;
  /**
   * Check every handler answer against its declared response schema, and every error answer
   * against the route's declared ones (route-errors.ts). Tests; 500 on a mismatch.
   */
  validateResponses?: boolean;
}

/** The operationId of the route that took the request, for metrics and logs. */
export function operationIdOf(res: Response): string | undefined {
  return res.locals.operationId as string | undefined;
}

export function buildRouter(routes: readonly RouteDef[], deps: RouterDeps): Router {
  checkRouteTable(routes, deps.schemas);
  const validators = compileRouteValidators(routes, deps.schemas);
  const router = express.Router({ caseSensitive: true, strict: false });
  for (const route of routes) {
    let authenticator: Authenticator | undefined;
    if (route.auth !== 'none') {
      authenticator = deps.authenticators[route.auth];
      if (!authenticator) throw new Error(`route ${route.operationId} needs a "${route.auth}" authenticator`);
    }
    const method = route.method.toLowerCase() as Lowercase<RouteDef['method']>;
    router[method](
      route.path,
      start(route, authenticator, deps.authorize),
      bodyMiddleware({
        json: route.request?.body !== undefined,
        ...(route.bodyLimitBytes === undefined ? {} : { limitBytes: route.bodyLimitBytes }),
      }),
      invoke(route, validators.get(route)!, deps),
    );
  }
  router.use(fallbackMiddleware(routes));
  if (deps.validateResponses) router.use(undeclaredErrorCheck(routes, deps.logger));
  router.use(errorMiddleware(deps.logger, { logApiErrors: true }));
  return router;
}

function start(
  route: RouteDef,
  authenticator: Authenticator | undefined,
  authorize: RouterDeps['authorize'],
): RequestHandler {
  return async (req, res, next) => {
    res.locals.operationId = route.operationId;
    let principal: Principal | null = null;
    try {
      principal = authenticator ? await authenticator(req) : null;
    } catch (err) {
      // A credential store that cannot answer (database down) is the server's trouble, not the
      // caller's: 503 so clients retry, never a 401 that would look like a bad key.
      if (err instanceof ApiError) throw err;
      throw HTTP_ERRORS.credentialsUnavailable(err);
    }
    if (principal && authorize) authorize(principal, route);
    res.locals.principal = principal;
    next();
  };
}

function invoke(route: RouteDef, v: RouteValidators, deps: RouterDeps): RequestHandler {
  return async (req, res) => {
    const params: Record<string, unknown> = { ...req.params };
    const query: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
    const body: unknown = res.locals.body;
    checkRequest(v, { params, query, body });

    const ctx: RouteContext = {
      operationId: route.operationId,
      params,
      query,
      body,
      principal: res.locals.principal as Principal | null,
      req,
      res,
    };
    const result = await route.handler(ctx);

    if (deps.validateResponses) {
      const validate = v.responses.get(result.status);
      const problems = validate ? check(validate, result.body, 'response') : [];
      if (!(result.status in route.responses) || problems.length > 0) {
        deps.logger.error(
          { operationId: route.operationId, status: result.status, problems },
          'handler answer does not match the declared responses',
        );
        throw internalError();
      }
    }

    sendResult(res, result);
  };
}

/** Turns an error answer the route does not declare into a logged 500 (see RouterDeps). */
function undeclaredErrorCheck(routes: readonly RouteDef[], logger: Logger): ErrorRequestHandler {
  const byOperation = new Map(routes.map((r) => [r.operationId, r]));
  return (err, _req, res, next) => {
    const route = byOperation.get(operationIdOf(res) ?? '');
    const answer = clientErrorOf(err);
    if (route && answer && !isDeclaredAnswer(route, answer)) {
      logger.error(
        { operationId: route.operationId, status: answer.status, code: answer.code, step: answer.step },
        'error answer not declared on the route (RouteDef.errors)',
      );
      next(internalError());
      return;
    }
    next(err);
  };
}
