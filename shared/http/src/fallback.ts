// What the router answers when no route takes the request: 405 with Allow when the path exists
// under other methods, otherwise 404. Both are errors in the standard body.
import type { RequestHandler } from 'express';
import { HTTP_ERRORS } from './http-errors.ts';
import { parsePathTemplate } from './path-template.ts';
import type { RouteDef } from './route-def.ts';

export function fallbackMiddleware(routes: readonly RouteDef[]): RequestHandler {
  const templates = routes.map((r) => ({ method: r.method, template: parsePathTemplate(r.path) }));
  return (req, _res, next) => {
    const allowed = new Set(
      templates.filter((t) => t.template.matches(req.path)).map((t) => t.method as string),
    );
    if (allowed.size === 0) {
      return next(HTTP_ERRORS.notFound());
    }
    if (allowed.has('GET')) allowed.add('HEAD');
    next(HTTP_ERRORS.methodNotAllowed(req.method, [...allowed].sort().join(', ')));
  };
}
