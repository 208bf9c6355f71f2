import type { Principal, RouteContext } from '@lattice/http';

/** The caller of an authenticated route. */
export function principalOf(ctx: RouteContext): Principal {
  // Null only when a route declared auth 'none' asks for it: a route-table bug, hence a 500.
  if (!ctx.principal) throw new Error(`${ctx.operationId} needs an authenticated principal`);
  return ctx.principal;
}
