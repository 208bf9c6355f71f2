// Route paths use a deliberately small subset of express syntax: literal segments and `:name`
// parameters. That keeps them trivially convertible to OpenAPI (`{name}`) and lets the 405
// check match paths without depending on express internals.
const LITERAL_RE = /^[a-z0-9][a-z0-9._-]*$/;
const PARAM_RE = /^:([A-Za-z_][A-Za-z0-9_]*)$/;

export interface PathTemplate {
  path: string;
  params: string[];
  matches(requestPath: string): boolean;
}

export function parsePathTemplate(path: string): PathTemplate {
  if (!path.startsWith('/')) throw new Error(`route path "${path}" must start with /`);
  const segments = path === '/' ? [] : path.slice(1).split('/');
  const params: string[] = [];
  for (const segment of segments) {
    const param = PARAM_RE.exec(segment);
    if (param) params.push(param[1]!);
    else if (!LITERAL_RE.test(segment)) {
      throw new Error(`route path "${path}": segment "${segment}" is neither a literal nor :name`);
    }
  }
  if (new Set(params).size !== params.length) throw new Error(`route path "${path}" repeats a parameter`);
  return {
    path,
    params,
    matches(requestPath) {
      // Same rules as the express router built with { strict: false, caseSensitive: true }.
      const trimmed =
        requestPath.length > 1 && requestPath.endsWith('/') ? requestPath.slice(0, -1) : requestPath;
      const parts = trimmed === '/' ? [] : trimmed.slice(1).split('/');
      if (parts.length !== segments.length) return false;
      return segments.every((s, i) => (s.startsWith(':') ? parts[i] !== '' : s === parts[i]));
    },
  };
}

/** `/mail/webhooks/:id` → `/mail/webhooks/{id}` */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}
