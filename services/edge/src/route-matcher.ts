// The public route table compiled once: routes grouped by toolkit and segment count, templates
// pre-split, so a request costs one split of its path and a few string comparisons. It answers
// exactly as matchPublicRoute / allowedMethods of @lattice/keys (route-matcher.test.ts holds it
// to that) plus what an HTTP router needs: HEAD served as GET, and the Allow list for a 405.
import { PUBLIC_ROUTES, type PublicMethod, type PublicRoute } from '@lattice/keys';

interface CompiledRoute {
  route: PublicRoute;
  /** Per segment of the template: the literal it must equal, or null for a parameter. */
  literals: Array<string | null>;
  /** Per segment: the parameter's name, or null for a literal. */
  names: Array<string | null>;
}

export type RouteResolution =
  | { kind: 'match'; route: PublicRoute; params: Record<string, string> }
  /** The path exists under other methods; `allow` is the Allow header value. */
  | { kind: 'method'; allow: string }
  | { kind: 'none' }
  /** A path parameter is not validly percent-encoded. */
  | { kind: 'malformed' };

export interface RouteMatcher {
  /** `subPath` is the raw path below the toolkit (`/emails/123`); parameters come back decoded. */
  resolve(toolkit: string, method: string, subPath: string): RouteResolution;
}

const NONE: RouteResolution = { kind: 'none' };
const MALFORMED: RouteResolution = { kind: 'malformed' };

function compile(route: PublicRoute): CompiledRoute {
  // Two arrays of one element type each, not an object per segment of one of two shapes: the
  // per-request loop then reads monomorphic arrays.
  const segments = route.path.split('/');
  const isParam = (s: string) => s.startsWith('{') && s.endsWith('}');
  return {
    route,
    literals: segments.map((s) => (isParam(s) ? null : s)),
    names: segments.map((s) => (isParam(s) ? s.slice(1, -1) : null)),
  };
}

function segmentsMatch(compiled: CompiledRoute, segments: readonly string[]): boolean {
  const { literals } = compiled;
  for (let i = 0; i < segments.length; i++) {
    const literal = literals[i];
    const s = segments[i]!;
    if (literal === null ? s === '' : literal !== s) return false;
  }
  return true;
}

function allowHeader(methods: ReadonlySet<PublicMethod>): string {
  const names: string[] = [...methods];
  if (methods.has('GET')) names.push('HEAD');
  return names.sort().join(', ');
}

export function createRouteMatcher(routes: readonly PublicRoute[] = PUBLIC_ROUTES): RouteMatcher {
  const byToolkit = new Map<string, Map<number, CompiledRoute[]>>();
  for (const route of routes) {
    const compiled = compile(route);
    let byLength = byToolkit.get(route.toolkit);
    if (!byLength) {
      byLength = new Map();
      byToolkit.set(route.toolkit, byLength);
    }
    const list = byLength.get(compiled.literals.length) ?? [];
    list.push(compiled);
    byLength.set(compiled.literals.length, list);
  }

  return {
    resolve(toolkit, method, subPath) {
      const byLength = byToolkit.get(toolkit);
      if (!byLength) return NONE;
      const segments = subPath.split('/');
      const candidates = byLength.get(segments.length);
      if (!candidates) return NONE;
      // HEAD is GET without a body (Node drops the body); the route and the key scope are GET's.
      const wanted = method === 'HEAD' ? 'GET' : method;
      let other: Set<PublicMethod> | undefined;
      for (const c of candidates) {
        if (!segmentsMatch(c, segments)) continue;
        if (c.route.method !== wanted) {
          other ??= new Set();
          other.add(c.route.method);
          continue;
        }
        const params: Record<string, string> = {};
        for (let i = 0; i < segments.length; i++) {
          const name = c.names[i];
          if (name === null || name === undefined) continue;
          const raw = segments[i]!;
          try {
            params[name] = raw.includes('%') ? decodeURIComponent(raw) : raw;
          } catch {
            return MALFORMED;
          }
        }
        return { kind: 'match', route: c.route, params };
      }
      return other ? { kind: 'method', allow: allowHeader(other) } : NONE;
    },
  };
}
