// Every route of the public edge, under `{public_url}/{product_id}/{toolkit}`. Scopes name these
// coordinates (toolkit, method, path template); the edge matches requests against them.

export const TOOLKITS = ['mail', 'realtime'] as const;
export type Toolkit = (typeof TOOLKITS)[number];

export type PublicMethod = 'GET' | 'POST';

export interface PublicRoute {
  toolkit: Toolkit;
  method: PublicMethod;
  /** Template relative to the toolkit, `{name}` for a path segment: `/emails/{id}`. */
  path: string;
  /** false: no key is read or checked (tracking and unsubscribe links carry a signed token). */
  keyed: boolean;
}

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { toolkit: 'mail', method: 'POST', path: '/emails', keyed: true },
  { toolkit: 'mail', method: 'GET', path: '/emails/{id}', keyed: true },
  { toolkit: 'mail', method: 'GET', path: '/t/open/{token}', keyed: false },
  { toolkit: 'mail', method: 'GET', path: '/t/click/{token}', keyed: false },
  { toolkit: 'mail', method: 'GET', path: '/unsubscribe/{token}', keyed: false },
  { toolkit: 'mail', method: 'POST', path: '/unsubscribe/{token}', keyed: false },
  { toolkit: 'realtime', method: 'POST', path: '/tokens/issue', keyed: true },
  { toolkit: 'realtime', method: 'POST', path: '/messages', keyed: true },
  { toolkit: 'realtime', method: 'GET', path: '/channels/{channel}/history', keyed: true },
  { toolkit: 'realtime', method: 'GET', path: '/channels/{channel}/presence', keyed: true },
  { toolkit: 'realtime', method: 'GET', path: '/channels/{channel}/presence/stats', keyed: true },
];

export function isToolkit(value: unknown): value is Toolkit {
  return typeof value === 'string' && (TOOLKITS as readonly string[]).includes(value);
}

export function findKeyedRoute(toolkit: string, method: string, path: string): PublicRoute | undefined {
  return PUBLIC_ROUTES.find(
    (r) => r.keyed && r.toolkit === toolkit && r.method === method && r.path === path,
  );
}

export interface RouteMatch {
  route: PublicRoute;
  params: Record<string, string>;
}

/** Matches a request path below the toolkit (`/emails/123`) to a route; undefined when none. */
export function matchPublicRoute(toolkit: string, method: string, subPath: string): RouteMatch | undefined {
  const segments = subPath.split('/');
  for (const route of PUBLIC_ROUTES) {
    if (route.toolkit !== toolkit || route.method !== method) continue;
    const template = route.path.split('/');
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < template.length && ok; i++) {
      const t = template[i]!;
      const s = segments[i]!;
      if (t.startsWith('{') && t.endsWith('}')) {
        if (s === '') ok = false;
        else params[t.slice(1, -1)] = s;
      } else if (t !== s) ok = false;
    }
    if (ok) return { route, params };
  }
  return undefined;
}

/** Methods any route answers at this path (for 405 Allow); empty when the path is unknown. */
export function allowedMethods(toolkit: string, subPath: string): PublicMethod[] {
  const methods = new Set<PublicMethod>();
  for (const method of ['GET', 'POST'] as const)
    if (matchPublicRoute(toolkit, method, subPath)) methods.add(method);
  return [...methods];
}
