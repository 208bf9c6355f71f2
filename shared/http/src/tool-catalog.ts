// Route table → agent tool definitions, one per catalog operation: name = operationId, input =
// path parameters, query parameters, body fields and the request headers the operation reads
// (under their header names: `Idempotency-Key`, `Prefer`) merged into one self-contained JSON
// Schema (docs/management-api.md "Agent tools (MCP)").
import { toOpenApiPath } from './path-template.ts';
import { catalogRoutes, type RouteDef } from './route-def.ts';
import { checkRouteTable } from './route-table-check.ts';
import { dereference } from './schema-refs.ts';
import type { JsonSchema, SchemaRegistry } from './schema-registry.ts';

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** Keywords that make a body more than a flat list of properties; such a body nests as `body`. */
const COMPOSITE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'patternProperties', 'dependentSchemas'];

export function buildToolCatalog(routes: readonly RouteDef[], schemas: SchemaRegistry): ToolDefinition[] {
  const catalog = catalogRoutes(routes);
  checkRouteTable(catalog, schemas);
  return catalog.map((route) => ({
    name: route.operationId,
    description: [
      route.summary,
      route.description,
      route.access?.roles ? `Only a member with role ${route.access.roles.join(' or ')} may call it.` : '',
      `(${route.method} ${toOpenApiPath(route.path)})`,
    ]
      .filter(Boolean)
      .join('\n\n'),
    inputSchema: inputSchemaOf(route, schemas),
  }));
}

function inputSchemaOf(route: RouteDef, schemas: SchemaRegistry): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  let closed = true;
  const add = (name: string, schema: unknown, isRequired: boolean) => {
    if (name in properties) {
      throw new Error(`tool ${route.operationId}: input field "${name}" comes from two parts of the request`);
    }
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  const addObject = (schema: JsonSchema) => {
    const req = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
      add(name, prop, req.includes(name));
    }
  };

  const { params, query, body, headers } = route.request ?? {};
  if (params) addObject(dereference(params, schemas));
  if (query) addObject(dereference(query, schemas));
  if (headers) addObject(dereference(headers, schemas));
  if (body) {
    const schema = dereference(body, schemas);
    const flat = schema.type === 'object' && !COMPOSITE.some((k) => k in schema);
    if (flat) {
      addObject(schema);
      if (schema.additionalProperties !== false) closed = false;
    } else {
      add('body', schema, true);
    }
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(closed ? { additionalProperties: false } : {}),
  };
}
