// What the router answers when no route takes the request: 405 with Allow when the path exists
// under other methods, otherwise 404. Both are errors in the standard body.
import { ApiError } from '@lattice/core';
import type { RequestHandler } from 'express';
import { STEP } from './error-mapping.ts';
import { parsePathTemplate } from './path-template.ts';
import type { RouteDef } from './route-def.ts';

export function fallbackMiddleware(routes: readonly RouteDef[]): RequestHandler {
  const templates = routes.map((r) => ({ method: r.method, template: parsePathTemplate(r.path) }));
  return (req, _res, next) => {
    const allowed = new Set(
      templates.filter((t) => t.template.matches(req.path)).map((t) => t.method as string),
    );
    if (allowed.size === 0) {
      return next(new ApiError(404, 'not_found', STEP.routing, 'No operation matches this path'));
    }
    if (allowed.has('GET')) allowed.add('HEAD');
    next(
      new ApiError(405, 'method_not_allowed', STEP.routing, `${req.method} is not allowed on this path`, {
        headers: { Allow: [...allowed].sort().join(', ') },
      }),
    );
  };
}
