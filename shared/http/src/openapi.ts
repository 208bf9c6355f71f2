// Route table → OpenAPI 3.1 document. Operational routes are left out (see RouteDef.operational).
//
// The catalog version: the first 12 hex characters of the SHA-256 of the canonical JSON of
// everything the document says about operations (paths, components, tags). Title, version and
// servers are excluded, so it changes when, and only when, the catalog changes. It is published
// as the top-level extension `x-lattice.catalog_version` (OpenAPI allows `x-` fields at the
// root, so validators accept the document) and in the `X-Catalog-Version` response header.
import { shortHash } from './canonical-json.ts';
import { toOpenApiPath } from './path-template.ts';
import {
  type AuthKind,
  catalogRoutes,
  DEFAULT_BODY_LIMIT_BYTES,
  type RouteDef,
  responseDef,
} from './route-def.ts';
import { checkRouteTable } from './route-table-check.ts';
import { mapRefs, reachableSchemaIds } from './schema-refs.ts';
import type { JsonSchema, SchemaRegistry } from './schema-registry.ts';

export const ERROR_BODY_SCHEMA_ID = 'error-body';
export const CATALOG_VERSION_HEADER = 'X-Catalog-Version';

export interface OpenApiInfo {
  title: string;
  /** Defaults to the catalog version. */
  version?: string;
  description?: string;
  servers?: Array<{ url: string; description?: string }>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  'x-lattice': { catalog_version: string };
  servers?: Array<{ url: string; description?: string }>;
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
}

const componentRef = (id: string, pointer = '') => `#/components/schemas/${id}${pointer}`;
const errorContent = { 'application/json': { schema: { $ref: componentRef(ERROR_BODY_SCHEMA_ID) } } };

const STANDARD_RESPONSES: Record<string, { status: number; description: string }> = {
  BadRequest: {
    status: 400,
    description:
      'The request was refused: `invalid_json`, `validation_error` (with `fields`), `unexpected_body` or `bad_request`.',
  },
  Unauthorized: {
    status: 401,
    description:
      'No credential (`missing_token`), not a valid one (`invalid_token`), or an area key used ' +
      'beyond what it reaches (`restricted_api_key`).',
  },
  Forbidden: {
    status: 403,
    description: 'The member’s role may not use this operation (`forbidden`).',
  },
  PayloadTooLarge: {
    status: 413,
    description: 'The body is over the operation’s cap (`payload_too_large`).',
  },
  UnsupportedMediaType: {
    status: 415,
    description: 'The body is not UTF-8 JSON (`unsupported_media_type`, `unsupported_content_encoding`).',
  },
  InternalError: {
    status: 500,
    description: 'An unexpected failure (`internal_error`); details are logged.',
  },
};

const SECURITY_SCHEMES: Record<Exclude<AuthKind, 'none'>, Record<string, Record<string, unknown>>> = {
  management: {
    managementToken: {
      type: 'http',
      scheme: 'bearer',
      description: 'A member token (`lmt_…`) or an area key of the product.',
    },
  },
  public_key: {
    publicKey: { type: 'http', scheme: 'bearer', description: 'A product public key.' },
    publicKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Public-Key' },
  },
};

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

export function buildOpenApi(
  routes: readonly RouteDef[],
  info: OpenApiInfo,
  schemas: SchemaRegistry,
): OpenApiDocument {
  const catalog = catalogRoutes(routes);
  checkRouteTable(catalog, schemas);

  const used = new Set<string>([ERROR_BODY_SCHEMA_ID]);
  for (const r of catalog) {
    for (const id of Object.values(r.request ?? {})) used.add(id);
    for (const def of Object.values(r.responses)) {
      const schema = responseDef(def).schema;
      if (schema) used.add(schema);
    }
  }
  const componentSchemas: Record<string, JsonSchema> = {};
  for (const id of reachableSchemaIds(used, schemas)) {
    componentSchemas[id] = mapRefs(schemas.get(id)!, id, (t) => componentRef(t.id, t.pointer));
  }

  const paths: Record<string, Record<string, unknown>> = {};
  const authKinds = new Set<AuthKind>();
  for (const route of catalog) {
    authKinds.add(route.auth);
    const path = toOpenApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operationOf(route, componentSchemas);
  }

  const securitySchemes: Record<string, unknown> = {};
  for (const kind of authKinds) if (kind !== 'none') Object.assign(securitySchemes, SECURITY_SCHEMES[kind]);
  const responses: Record<string, unknown> = {};
  for (const [name, r] of Object.entries(STANDARD_RESPONSES)) {
    responses[name] = { description: r.description, content: errorContent };
  }
  const body = {
    tags: [...new Set(catalog.map((r) => r.area))].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: componentSchemas,
      responses,
      headers: {
        [CATALOG_VERSION_HEADER]: {
          description: 'The catalog version of the API that answered.',
          schema: { type: 'string' },
        },
      },
      securitySchemes,
    },
  };
  const { servers, ...infoFields } = info;
  const catalogVersion = catalogVersionOf(body);
  return {
    openapi: '3.1.0',
    info: { ...infoFields, version: info.version ?? catalogVersion },
    'x-lattice': { catalog_version: catalogVersion },
    ...(servers ? { servers } : {}),
    ...body,
  };
}

/** The catalog version of a document's operational content (see the file comment). */
export function catalogVersionOf(doc: { tags: unknown; paths: unknown; components: unknown }): string {
  return shortHash({ tags: doc.tags, paths: doc.paths, components: doc.components });
}

function operationOf(route: RouteDef, componentSchemas: Record<string, JsonSchema>): Record<string, unknown> {
  const parameters: unknown[] = [];
  const addParameters = (id: string | undefined, where: 'path' | 'query') => {
    if (!id) return;
    const schema = componentSchemas[id]!;
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    for (const [name, prop] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      parameters.push({
        name,
        in: where,
        required: where === 'path' || required.includes(name),
        ...(typeof prop.description === 'string' ? { description: prop.description } : {}),
        schema: prop,
      });
    }
  };
  addParameters(route.request?.params, 'path');
  addParameters(route.request?.query, 'query');

  const responses: Record<string, unknown> = {};
  for (const [status, def] of Object.entries(route.responses)) {
    const { schema, contentType, description } = responseDef(def);
    const code = Number(status);
    responses[status] = {
      description: description ?? STATUS_TEXT[code] ?? 'Response',
      ...(code < 300
        ? {
            headers: { [CATALOG_VERSION_HEADER]: { $ref: `#/components/headers/${CATALOG_VERSION_HEADER}` } },
          }
        : {}),
      ...(schema
        ? { content: { [contentType ?? 'application/json']: { schema: { $ref: componentRef(schema) } } } }
        : {}),
    };
  }
  const standard = (name: string) => {
    const status = String(STANDARD_RESPONSES[name]!.status);
    responses[status] ??= { $ref: `#/components/responses/${name}` };
  };
  standard('BadRequest');
  if (route.auth !== 'none') standard('Unauthorized');
  if (route.access?.roles) standard('Forbidden');
  if (route.request?.body) {
    standard('PayloadTooLarge');
    standard('UnsupportedMediaType');
  }
  standard('InternalError');

  const bodyId = route.request?.body;
  const bodySchema = bodyId ? componentSchemas[bodyId]! : undefined;
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.area],
    ...(route.access?.roles ? { 'x-required-roles': [...route.access.roles] } : {}),
    security:
      route.auth === 'none' ? [] : Object.keys(SECURITY_SCHEMES[route.auth]).map((s) => ({ [s]: [] })),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(bodyId && bodySchema
      ? {
          requestBody: {
            required: Array.isArray(bodySchema.required) && bodySchema.required.length > 0,
            content: { 'application/json': { schema: { $ref: componentRef(bodyId) } } },
          },
          'x-body-limit-bytes': route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
        }
      : {}),
    responses,
  };
}
