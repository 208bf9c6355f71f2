// An operation as the generated tables describe it (generated/*-operations.ts), and the HTTP
// request of a call: the flat arguments split back into path parameters, query parameters,
// request headers and body fields by name, as the management API's agent tools split theirs.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OperationSpec {
  /** The operationId: `organization_public-keys_update-scope`. */
  readonly id: string;
  readonly method: HttpMethod;
  /** Relative to the client's base, `{name}` for a path parameter: `/organization/public-keys/{id}/scope`. */
  readonly path: string;
  readonly params?: readonly string[];
  readonly query?: readonly string[];
  /** Request headers taken as arguments under their header names (`Idempotency-Key`). */
  readonly headers?: readonly string[];
  /** `fields`: the body is the arguments that are not parameters or headers; `nested`: `args.body`. */
  readonly body?: 'fields' | 'nested';
  /** The operation reads `Idempotency-Key`: the client sends one on every call (the same on each retry). */
  readonly idempotent?: true;
  /** A `…_list` operation: `{data, next_cursor}` pages, `cursor` in the query. */
  readonly list?: true;
}

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

export interface HttpRequestParts {
  method: HttpMethod;
  /** Path and query string, relative to the client's base. */
  path: string;
  headers: Record<string, string>;
  /** JSON text of the body, for operations that take one. */
  body?: string;
}

export type Args = Readonly<Record<string, unknown>>;

/** The request of a call of `op` with these arguments. */
export function requestParts(op: OperationSpec, args: Args): HttpRequestParts {
  const params = op.params ?? [];
  const query = op.query ?? [];
  const headerNames = op.headers ?? [];
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = args[name];
    if (value === undefined || value === null || value === '') {
      throw new TypeError(`${op.id}: the path parameter "${name}" is missing`);
    }
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const name of query) {
    const value = args[name];
    if (value !== undefined && value !== null) search.set(name, String(value));
  }
  const headers: Record<string, string> = {};
  for (const name of headerNames) {
    const value = args[name];
    if (value !== undefined && value !== null) headers[name] = String(value);
  }
  const url = search.size > 0 ? `${path}?${search}` : path;
  if (!op.body) return { method: op.method, path: url, headers };
  const taken = new Set([...params, ...query, ...headerNames]);
  const body =
    op.body === 'nested'
      ? (args.body ?? {})
      : Object.fromEntries(Object.entries(args).filter(([name]) => !taken.has(name)));
  return { method: op.method, path: url, headers, body: JSON.stringify(body) };
}
