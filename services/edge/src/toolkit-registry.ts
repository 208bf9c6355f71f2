// Toolkits plug their public handlers in here, one per route of PUBLIC_ROUTES. The edge calls a
// handler only after the per-IP limit, the route match and (on keyed routes) the key check have
// passed and the key headers are gone. A route nobody registered answers 501 not_implemented.
import type { Environment } from '@lattice/core';
import { PUBLIC_ROUTES, type PublicMethod, type PublicRoute, type Toolkit } from '@lattice/keys';
import type { Request, Response } from 'express';
import { EDGE_ERRORS } from './edge-errors.ts';

export interface ToolkitRequest {
  /** The edge's environment: realtime tokens, for one, are signed per environment. */
  environment: Environment;
  productId: string;
  route: PublicRoute;
  /** Path parameters of the route template, percent-decoded. */
  params: Record<string, string>;
  /** Id of the public key that opened a keyed route; null on keyless routes. */
  keyId: string | null;
  req: Request;
  res: Response;
}

/** Answers through `res`; a thrown ApiError becomes the error body, anything else a 500. */
export type ToolkitHandler = (request: ToolkitRequest) => void | Promise<void>;

export interface ToolkitRegistry {
  /** Throws when the route is not a public route, or already has a handler. */
  register(toolkit: Toolkit, method: PublicMethod, path: string, handler: ToolkitHandler): void;
  /** The route's handler, or the 501 one. `route` must be an entry of PUBLIC_ROUTES. */
  handlerFor(route: PublicRoute): ToolkitHandler;
}

const notImplemented: ToolkitHandler = () => {
  throw EDGE_ERRORS.notImplemented();
};

export function createToolkitRegistry(): ToolkitRegistry {
  // Keyed by the route objects themselves: the matcher hands back these very objects, so the
  // per-request lookup is one identity hash.
  const handlers = new Map<PublicRoute, ToolkitHandler>();
  return {
    register(toolkit, method, path, handler) {
      const route = PUBLIC_ROUTES.find(
        (r) => r.toolkit === toolkit && r.method === method && r.path === path,
      );
      if (!route) throw new Error(`${method} /${toolkit}${path} is not a public route`);
      if (handlers.has(route)) throw new Error(`${method} /${toolkit}${path} already has a handler`);
      handlers.set(route, handler);
    },
    handlerFor: (route) => handlers.get(route) ?? notImplemented,
  };
}
