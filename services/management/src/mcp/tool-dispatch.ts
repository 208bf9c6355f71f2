// A tool call is its REST operation (docs/management-api.md "Agent tools (MCP)"): the flat
// arguments are split back into path parameters, query parameters, request headers and body
// fields by the route's own schemas, and the request goes to the management API's router itself,
// so authentication, validation, roles and error bodies are the REST ones by construction, never
// a second copy.
import { dereferenceSchema, HTTP_ERRORS, type RouteDef, type SchemaRegistry } from '@lattice/http';

export interface ToolRequest {
  method: string;
  /** Path and query string. */
  path: string;
  /** JSON body, for the methods that take one. */
  body?: string;
  /** The request headers among the arguments (the route's `request.headers`), by name. */
  headers: Record<string, string>;
}

export interface ToolAnswer {
  // The SDK's CallToolResult is an open object; so is this one.
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const propertyNames = (id: string | undefined, schemas: SchemaRegistry): string[] =>
  id ? Object.keys((dereferenceSchema(id, schemas).properties ?? {}) as Record<string, unknown>) : [];

/** A header value a request can carry: visible ASCII, spaces and tabs inside (RFC 9110 field-value). */
const FIELD_VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/;

/**
 * The REST request of a tool call with these arguments. A header argument that no request could
 * carry (not a string of visible ASCII) throws the REST 400 `validation_error` naming it.
 */
export function toolRequest(
  route: RouteDef,
  args: Record<string, unknown>,
  schemas: SchemaRegistry,
): ToolRequest {
  const paramNames = propertyNames(route.request?.params, schemas);
  const queryNames = propertyNames(route.request?.query, schemas);
  const headerNames = propertyNames(route.request?.headers, schemas);
  const headers: Record<string, string> = {};
  const badHeaders: Array<{ path: string; message: string }> = [];
  for (const name of headerNames) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    if (typeof value === 'string' && FIELD_VALUE.test(value)) headers[name] = value;
    else
      badHeaders.push({ path: `headers.${name}`, message: 'must be a string of printable ASCII characters' });
  }
  if (badHeaders.length > 0) throw HTTP_ERRORS.validation(badHeaders);
  const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) =>
    encodeURIComponent(String(args[name] ?? '')),
  );
  const query = new URLSearchParams();
  for (const name of queryNames) {
    const value = args[name];
    if (value !== undefined && value !== null) query.set(name, String(value));
  }
  const search = query.size > 0 ? `?${query}` : '';
  if (!route.request?.body) return { method: route.method, path: `${path}${search}`, headers };
  const bodySchema = dereferenceSchema(route.request.body, schemas);
  const nested = 'body' in args && !('body' in ((bodySchema.properties ?? {}) as object));
  const body = nested
    ? args.body
    : Object.fromEntries(
        Object.entries(args).filter(
          ([k]) => !paramNames.includes(k) && !queryNames.includes(k) && !headerNames.includes(k),
        ),
      );
  return { method: route.method, path: `${path}${search}`, body: JSON.stringify(body ?? {}), headers };
}

/** The tool result of a REST answer: its JSON body as text (and structured when an object). */
export function toolAnswer(status: number, text: string): ToolAnswer {
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const isObject = typeof json === 'object' && json !== null && !Array.isArray(json);
  return {
    content: [{ type: 'text', text }],
    ...(isObject ? { structuredContent: json as Record<string, unknown> } : {}),
    ...(status >= 400 ? { isError: true } : {}),
  };
}
