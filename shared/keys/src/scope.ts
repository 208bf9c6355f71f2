// Public key scopes: the whole product (every toolkit and route, including ones added later),
// one toolkit, or exactly one keyed route. A scope names route coordinates only; it never
// restricts sending domains.
import type { FieldError } from '@lattice/core';
import {
  findKeyedRoute,
  isToolkit,
  PUBLIC_ROUTES,
  type PublicRoute,
  TOOLKITS,
  type Toolkit,
} from '@lattice/http';

export type PublicKeyScope =
  | { kind: 'product' }
  | { kind: 'toolkit'; toolkit: Toolkit }
  | { kind: 'route'; toolkit: Toolkit; method: 'GET' | 'POST'; path: string };

export function scopeCovers(
  scope: PublicKeyScope,
  route: Pick<PublicRoute, 'toolkit' | 'method' | 'path'>,
): boolean {
  switch (scope.kind) {
    case 'product':
      return true;
    case 'toolkit':
      return scope.toolkit === route.toolkit;
    case 'route':
      return scope.toolkit === route.toolkit && scope.method === route.method && scope.path === route.path;
  }
}

/** The toolkits a scope reaches, as the key list shows them. */
export function toolkitsReached(scope: PublicKeyScope): Toolkit[] {
  return scope.kind === 'product' ? [...TOOLKITS] : [scope.toolkit];
}

/** Fields each kind may carry besides `kind`. */
const KIND_FIELDS: Record<PublicKeyScope['kind'], readonly string[]> = {
  product: [],
  toolkit: ['toolkit'],
  route: ['toolkit', 'method', 'path'],
};

/**
 * Checks a scope taken from a request body (already shape-validated by JSON Schema): the
 * toolkit must exist, a route scope must name a keyed route of that toolkit, and a field that
 * does not belong to the kind is refused rather than silently dropped. Field paths continue
 * `path` in its own style: `/scope` → `/scope/kind`, `body.scope` → `body.scope.kind`.
 */
export function parseScope(
  input: unknown,
  path = '/scope',
): { scope: PublicKeyScope } | { fields: FieldError[] } {
  const at = (field: string) => (path.startsWith('/') ? `${path}/${field}` : `${path}.${field}`);
  const s = input as Record<string, unknown> | null;
  if (!s || typeof s !== 'object' || Array.isArray(s))
    return { fields: [{ path, message: 'must be an object' }] };
  if (s.kind !== 'product' && s.kind !== 'toolkit' && s.kind !== 'route') {
    return { fields: [{ path: at('kind'), message: 'must be one of product, toolkit, route' }] };
  }
  const extra = Object.keys(s).filter(
    (k) => k !== 'kind' && !KIND_FIELDS[s.kind as PublicKeyScope['kind']].includes(k),
  );
  if (extra.length > 0) {
    return { fields: extra.map((k) => ({ path: at(k), message: `is not allowed for kind ${s.kind}` })) };
  }
  if (s.kind === 'product') return { scope: { kind: 'product' } };
  if (!isToolkit(s.toolkit)) {
    return { fields: [{ path: at('toolkit'), message: `must be one of ${TOOLKITS.join(', ')}` }] };
  }
  if (s.kind === 'toolkit') return { scope: { kind: 'toolkit', toolkit: s.toolkit } };
  const route = findKeyedRoute(s.toolkit, String(s.method), String(s.path));
  if (!route) {
    const known = PUBLIC_ROUTES.filter((r) => r.keyed && r.toolkit === s.toolkit).map(
      (r) => `${r.method} ${r.path}`,
    );
    return { fields: [{ path, message: `must name a keyed ${s.toolkit} route: ${known.join(', ')}` }] };
  }
  return { scope: { kind: 'route', toolkit: route.toolkit, method: route.method, path: route.path } };
}
