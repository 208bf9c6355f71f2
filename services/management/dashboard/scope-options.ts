// The scope choices the page offers, generated from the public edge's own route table
// (shared/http/src/public-routes.ts, bundled into the page by esbuild): the route options are
// exactly the keyed routes the API accepts in a route scope, so they cannot drift from it.
// No DOM here, so unit tests run it in Node.
import {
  PUBLIC_ROUTES,
  type PublicMethod,
  type PublicRoute,
  TOOLKITS,
  type Toolkit,
} from '@lattice/http/public-routes';
import type { Scope } from './api-types.ts';

export interface RouteOption {
  /** The select's value: `toolkit METHOD /path`, unique per keyed route. */
  value: string;
  toolkit: Toolkit;
  method: PublicMethod;
  path: string;
  /** What the option reads: `POST /messages: publish a message`. */
  label: string;
}

/**
 * Plain words for each keyed route, by operationId. A route missing here is still offered, by
 * its method and path alone (scope-options.test.ts asks for a description of every route).
 */
export const ROUTE_PURPOSES: Readonly<Record<string, string>> = {
  public_mail_email_send: 'send an email',
  public_mail_email_get: 'read an email’s status',
  public_realtime_token_issue: 'mint delegated tokens for browsers',
  public_realtime_message_publish: 'publish a message',
  public_realtime_history_get: 'read a channel’s history',
  public_realtime_presence_get: 'read a channel’s presence',
  public_realtime_presence_stats_get: 'read a channel’s presence counts',
};

const routeValue = (toolkit: string, method: string, path: string) => `${toolkit} ${method} ${path}`;

function optionOf(route: PublicRoute): RouteOption {
  const purpose = ROUTE_PURPOSES[route.operationId];
  const coordinates = `${route.method} ${route.path}`;
  return {
    value: routeValue(route.toolkit, route.method, route.path),
    toolkit: route.toolkit,
    method: route.method,
    path: route.path,
    label: purpose ? `${coordinates}: ${purpose}` : coordinates,
  };
}

/** Every keyed public route, in the table's order (mail first); keyless routes take no key. */
export const ROUTE_OPTIONS: readonly RouteOption[] = PUBLIC_ROUTES.filter((r) => r.keyed).map(optionOf);

export { TOOLKITS };

/** The narrowest scope, which the Create form starts with: exactly one route, the first one. */
export function defaultScope(): Scope {
  const first = ROUTE_OPTIONS[0]!;
  return { kind: 'route', toolkit: first.toolkit, method: first.method, path: first.path };
}

export function routeOptionOf(scope: Scope): RouteOption | undefined {
  if (scope.kind !== 'route') return undefined;
  return ROUTE_OPTIONS.find((o) => o.value === routeValue(scope.toolkit, scope.method, scope.path));
}

/** The scope a form's choices describe; undefined when the chosen route is not offered. */
export function scopeOfChoice(kind: Scope['kind'], toolkit: string, route: string): Scope | undefined {
  if (kind === 'product') return { kind };
  if (kind === 'toolkit') {
    const found = TOOLKITS.find((t) => t === toolkit);
    return found ? { kind, toolkit: found } : undefined;
  }
  const option = ROUTE_OPTIONS.find((o) => o.value === route);
  return option ? { kind, toolkit: option.toolkit, method: option.method, path: option.path } : undefined;
}

/**
 * How the key list says what a key reaches: the toolkits (as the API's `toolkits` names them),
 * and what of them: every route, or the one method and path.
 */
export function describeReach(
  scope: Scope,
  toolkits: readonly string[],
): { toolkits: string; detail: string } {
  const names = toolkits.join(' + ');
  switch (scope.kind) {
    case 'product':
      return { toolkits: names, detail: 'every route, including later ones' };
    case 'toolkit':
      return { toolkits: names, detail: `every ${scope.toolkit} route` };
    case 'route':
      return { toolkits: names, detail: `${scope.method} ${scope.path}` };
  }
}
