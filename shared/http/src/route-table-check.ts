// Build-time checks of a route table. Mistakes in the table (an unknown schema id, a path
// parameter without a schema, two operations with one name) fail at startup, not per request.

import { parsePathTemplate } from './path-template.ts';
import { BODY_METHODS, HTTP_METHODS, type RouteDef, responseDef } from './route-def.ts';
import type { JsonSchema, SchemaRegistry } from './schema-registry.ts';

/** Tool-name safe (MCP allows [A-Za-z0-9_-], 64 characters). */
const OPERATION_ID_RE = /^[a-z][a-z0-9_-]{0,63}$/;
const AREA_RE = /^[a-z][a-z0-9-]*$/;
/** A field name (RFC 9110 token), as sent: `Idempotency-Key`. */
const HEADER_NAME_RE = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

export function checkRouteTable(routes: readonly RouteDef[], schemas: SchemaRegistry): void {
  const operationIds = new Set<string>();
  const endpoints = new Set<string>();
  for (const route of routes) {
    const fail = (problem: string) => routeError(route, problem);
    if (!OPERATION_ID_RE.test(route.operationId)) fail(`operationId must match ${OPERATION_ID_RE}`);
    if (operationIds.has(route.operationId)) fail('duplicate operationId');
    operationIds.add(route.operationId);
    if (!HTTP_METHODS.includes(route.method)) fail(`unsupported method`);
    if (!AREA_RE.test(route.area)) fail(`area must match ${AREA_RE}`);
    if (route.summary.trim() === '') fail('summary is empty');
    if (route.description.trim() === '') fail('description is empty');

    const template = parsePathTemplate(route.path);
    const endpoint = `${route.method} ${route.path.replace(/:[A-Za-z0-9_]+/g, ':')}`;
    if (endpoints.has(endpoint)) fail('another route has the same method and path');
    endpoints.add(endpoint);

    const schemaOf = (id: string | undefined, part: string): JsonSchema | undefined => {
      if (id === undefined) return undefined;
      return schemas.get(id) ?? fail(`${part} schema "${id}" is not in the registry`);
    };
    const params = schemaOf(route.request?.params, 'params');
    if (template.params.length > 0 || params) {
      if (!params)
        throw routeError(route, `path parameters ${template.params.join(', ')} need a params schema`);
      const names = Object.keys(objectProperties(params, 'params', fail)).sort();
      if (names.join() !== [...template.params].sort().join()) {
        fail(`params schema declares [${names}] but the path has [${template.params}]`);
      }
      const required = Array.isArray(params.required) ? params.required : [];
      if (!template.params.every((p) => required.includes(p))) fail('every path parameter must be required');
    }
    const query = schemaOf(route.request?.query, 'query');
    if (query) objectProperties(query, 'query', fail);
    const headers = schemaOf(route.request?.headers, 'headers');
    if (headers) {
      for (const name of Object.keys(objectProperties(headers, 'headers', fail))) {
        if (!HEADER_NAME_RE.test(name)) fail(`headers schema names "${name}", which is not a header name`);
      }
    }

    const body = schemaOf(route.request?.body, 'body');
    if (body && !BODY_METHODS.includes(route.method)) fail(`${route.method} routes take no body`);
    if (route.bodyLimitBytes !== undefined) {
      if (!body) fail('bodyLimitBytes without a body schema');
      if (!Number.isInteger(route.bodyLimitBytes) || route.bodyLimitBytes < 1) fail('bad bodyLimitBytes');
    }

    const statuses = Object.keys(route.responses).map(Number);
    if (!statuses.some((s) => s >= 200 && s < 300)) fail('no 2xx response declared');
    for (const status of statuses) {
      if (!Number.isInteger(status) || status < 100 || status > 599) fail(`bad response status ${status}`);
      schemaOf(responseDef(route.responses[status]!).schema, `response ${status}`);
      // Error answers are the ApiErrors of RouteDef.errors, so the document shows their bodies.
      if (status >= 400 && !route.operational)
        fail(`error status ${status} belongs in errors, not responses`);
    }
  }
}

function routeError(route: RouteDef, problem: string): never {
  throw new Error(`route ${route.operationId} (${route.method} ${route.path}): ${problem}`);
}

/** Params, query and headers schemas must be plain objects listing their properties at the top level. */
function objectProperties(
  schema: JsonSchema,
  part: string,
  fail: (problem: string) => never,
): Record<string, JsonSchema> {
  if (schema.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null) {
    return fail(`${part} schema "${String(schema.$id)}" must be {"type": "object", "properties": …}`);
  }
  return schema.properties as Record<string, JsonSchema>;
}
