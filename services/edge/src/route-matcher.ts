// The public route table compiled once: routes grouped by toolkit and segment count, templates
// pre-split, so a request costs one walk over its path and a few string comparisons. It answers
// exactly as matchPublicRoute / allowedMethods of @lattice/http (route-matcher.test.ts holds it
// to that) plus what an HTTP router needs: HEAD served as GET, and the Allow list for a 405.
import { PUBLIC_ROUTES, type PublicMethod, type PublicRoute } from '@lattice/http';

interface CompiledRoute {
  route: PublicRoute;
  /** Per segment of the template (after its leading `/`): the literal it must equal, or null for a parameter. */
  literals: Array<string | null>;
  /** Per segment: the parameter's name, or null for a literal. */
  names: Array<string | null>;
}

interface CompiledToolkit {
  name: string;
  /** Routes by their number of segments. */
  bySegments: Array<CompiledRoute[] | undefined>;
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

/**
 * `name` as V8 keeps property names (internalized): a name cut out of the template is a fresh
 * string, and storing a parameter under it would look the name up in V8's string table on every
 * request; defining a property internalizes it once, here.
 */
function propertyName(name: string): string {
  return Object.keys({ [name]: true })[0]!;
}

function compile(route: PublicRoute): CompiledRoute {
  // Two arrays of one element type each, not an object per segment of one of two shapes: the
  // per-request loop then reads monomorphic arrays.
  const segments = route.path.slice(1).split('/');
  const isParam = (s: string) => s.startsWith('{') && s.endsWith('}');
  return {
    route,
    literals: segments.map((s) => (isParam(s) ? null : s)),
    names: segments.map((s) => (isParam(s) ? propertyName(s.slice(1, -1)) : null)),
  };
}

function allowHeader(methods: ReadonlySet<PublicMethod>): string {
  const names: string[] = [...methods];
  if (methods.has('GET')) names.push('HEAD');
  return names.sort().join(', ');
}

export function createRouteMatcher(routes: readonly PublicRoute[] = PUBLIC_ROUTES): RouteMatcher {
  // A list, not a Map: there are two toolkits, and comparing the request's (fresh) toolkit string
  // with each name costs less than hashing it for a lookup.
  const toolkits: CompiledToolkit[] = [];
  let maxSegments = 0;
  for (const route of routes) {
    const compiled = compile(route);
    const count = compiled.literals.length;
    maxSegments = Math.max(maxSegments, count);
    let toolkit = toolkits.find((t) => t.name === route.toolkit);
    if (!toolkit) {
      toolkit = { name: route.toolkit, bySegments: [] };
      toolkits.push(toolkit);
    }
    const list = toolkit.bySegments[count] ?? [];
    list.push(compiled);
    toolkit.bySegments[count] = list;
  }
  // Where each segment of the request path ends: the path is walked in place rather than split
  // into an array of substrings, and only the parameters of the matching route are cut out.
  // Requests are matched one at a time, so one buffer serves them all.
  const ends = new Int32Array(maxSegments + 1);

  function segmentsMatch(compiled: CompiledRoute, subPath: string, count: number): boolean {
    const { literals } = compiled;
    let start = 1;
    for (let i = 0; i < count; i++) {
      const end = ends[i]!;
      const literal = literals[i] as string | null;
      if (literal === null) {
        if (end === start) return false;
      } else if (end - start !== literal.length || !subPath.startsWith(literal, start)) {
        return false;
      }
      start = end + 1;
    }
    return true;
  }

  return {
    resolve(toolkit, method, subPath) {
      let compiled: CompiledToolkit | undefined;
      for (const t of toolkits) {
        if (t.name === toolkit) {
          compiled = t;
          break;
        }
      }
      if (!compiled || subPath.charCodeAt(0) !== 47 /* / */) return NONE;
      let count = 0;
      for (let slash = 0; slash >= 0; count++) {
        if (count > maxSegments) return NONE;
        const next = subPath.indexOf('/', slash + 1);
        ends[count] = next < 0 ? subPath.length : next;
        slash = next;
      }
      const candidates = compiled.bySegments[count];
      if (!candidates) return NONE;
      // HEAD is GET without a body (Node drops the body); the route and the key scope are GET's.
      const wanted = method === 'HEAD' ? 'GET' : method;
      let other: Set<PublicMethod> | undefined;
      for (const c of candidates) {
        if (!segmentsMatch(c, subPath, count)) continue;
        if (c.route.method !== wanted) {
          other ??= new Set();
          other.add(c.route.method);
          continue;
        }
        const params: Record<string, string> = {};
        let start = 1;
        for (let i = 0; i < count; i++) {
          const end = ends[i]!;
          const name = c.names[i];
          if (name !== null && name !== undefined) {
            const raw = subPath.slice(start, end);
            try {
              params[name] = raw.includes('%') ? decodeURIComponent(raw) : raw;
            } catch {
              return MALFORMED;
            }
          }
          start = end + 1;
        }
        return { kind: 'match', route: c.route, params };
      }
      return other ? { kind: 'method', allow: allowHeader(other) } : NONE;
    },
  };
}
