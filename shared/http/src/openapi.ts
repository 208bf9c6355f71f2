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
import { errorAnswersByStatus } from './route-errors.ts';
import { checkRouteTable } from './route-table-check.ts';
import { atPointer, DATA_KEYWORDS, mapRefs, type RefTarget } from './schema-refs.ts';
import type { JsonSchema, SchemaRegistry } from './schema-registry.ts';

export const ERROR_BODY_SCHEMA_ID = 'error-body';
export const CATALOG_VERSION_HEADER = 'X-Catalog-Version';

export interface OpenApiInfo {
  title: string;
  /** One line per area (the routes' `area`, the document's tags). */
  tagDescriptions?: Record<string, string>;
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
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
}

const componentRef = (name: string) => `#/components/schemas/${name}`;

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

  // Components are what something points at: bodies, answers, the error body, and every schema
  // or part of one (a `$defs` entry, a property) that a `$ref` names. The path, query and header
  // schemas are not: their properties are inlined as parameters.
  const components = componentCollector(schemas);
  components.add({ id: ERROR_BODY_SCHEMA_ID, pointer: '' });
  for (const r of catalog) {
    if (r.request?.body) components.add({ id: r.request.body, pointer: '' });
    for (const def of Object.values(r.responses)) {
      const schema = responseDef(def).schema;
      if (schema) components.add({ id: schema, pointer: '' });
    }
  }
  const published = (id: string) => components.publish(schemas.get(id)!, id);

  const paths: Record<string, Record<string, unknown>> = {};
  const authKinds = new Set<AuthKind>();
  for (const route of catalog) {
    authKinds.add(route.auth);
    const path = toOpenApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operationOf(route, published);
  }
  const componentSchemas = Object.fromEntries(
    Object.entries(components.schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );

  const securitySchemes: Record<string, unknown> = {};
  for (const kind of authKinds) if (kind !== 'none') Object.assign(securitySchemes, SECURITY_SCHEMES[kind]);
  const body = {
    tags: [...new Set(catalog.map((r) => r.area))].sort().map((name) => {
      const description = info.tagDescriptions?.[name];
      return description ? { name, description } : { name };
    }),
    paths,
    components: {
      schemas: componentSchemas,
      headers: {
        [CATALOG_VERSION_HEADER]: {
          description: 'The catalog version of the API that answered.',
          schema: { type: 'string' },
        },
      },
      securitySchemes,
    },
  };
  const { servers, tagDescriptions: _tags, ...infoFields } = info;
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

function operationOf(route: RouteDef, published: (id: string) => JsonSchema): Record<string, unknown> {
  const parameters: unknown[] = [];
  const addParameters = (id: string | undefined, where: 'path' | 'query' | 'header') => {
    if (!id) return;
    const schema = published(id);
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    for (const [name, prop] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      const example = firstExample(prop);
      parameters.push({
        name,
        in: where,
        required: where === 'path' || required.includes(name),
        ...(typeof prop.description === 'string' ? { description: prop.description } : {}),
        schema: prop,
        ...(example === undefined ? {} : { example }),
      });
    }
  };
  addParameters(route.request?.params, 'path');
  addParameters(route.request?.query, 'query');
  addParameters(route.request?.headers, 'header');

  const responses: Record<string, unknown> = {};
  for (const [status, def] of Object.entries(route.responses)) {
    const { schema, contentType, description, headers } = responseDef(def);
    const code = Number(status);
    const example = schema ? firstExample(published(schema)) : undefined;
    responses[status] = {
      description: description ?? STATUS_TEXT[code] ?? 'Response',
      ...(code < 300
        ? {
            headers: {
              [CATALOG_VERSION_HEADER]: { $ref: `#/components/headers/${CATALOG_VERSION_HEADER}` },
              ...Object.fromEntries(
                Object.entries(headers ?? {}).map(([name, what]) => [
                  name,
                  { description: what, schema: { type: 'string' } },
                ]),
              ),
            },
          }
        : {}),
      ...(schema
        ? {
            content: {
              [contentType ?? 'application/json']: {
                schema: { $ref: componentRef(schema) },
                ...(example === undefined ? {} : { example }),
              },
            },
          }
        : {}),
    };
  }
  for (const [status, errors] of errorAnswersByStatus(route)) {
    responses[String(status)] ??= {
      description: errors.map((e) => `\`${e.code}\`: ${e.message}.`).join(' '),
      content: {
        'application/json': {
          schema: { $ref: componentRef(ERROR_BODY_SCHEMA_ID) },
          examples: Object.fromEntries(
            errors.map((e, i) => [
              errors.findIndex((o) => o.code === e.code) === i ? e.code : `${e.code}_${i}`,
              { summary: e.message, value: e.toBody() },
            ]),
          ),
        },
      },
    };
  }

  const bodyId = route.request?.body;
  const bodySchema = bodyId ? published(bodyId) : undefined;
  const bodyExample = bodySchema ? firstExample(bodySchema) : undefined;
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: [route.area],
    ...(route.access?.roles ? { 'x-required-roles': [...route.access.roles] } : {}),
    security:
      route.auth === 'none' ? [] : Object.keys(SECURITY_SCHEMES[route.auth]).map((s) => ({ [s]: [] })),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(bodyId && bodySchema
      ? {
          requestBody: {
            required: Array.isArray(bodySchema.required) && bodySchema.required.length > 0,
            content: {
              'application/json': {
                schema: { $ref: componentRef(bodyId) },
                ...(bodyExample === undefined ? {} : { example: bodyExample }),
              },
            },
          },
          'x-body-limit-bytes': route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
        }
      : {}),
    responses,
  };
}

/**
 * The document's components: each schema, or part of a schema, that a `$ref` names becomes one
 * component (`key-common.name` for `key-common#/$defs/name`), so every component is used as a
 * whole and a reader meets a named type rather than a pointer into another one.
 */
function componentCollector(registry: SchemaRegistry) {
  const schemas: Record<string, JsonSchema> = {};
  const nameOf = ({ id, pointer }: RefTarget) =>
    pointer === ''
      ? id
      : [
          id,
          ...pointer
            .split('/')
            .slice(1)
            .filter((segment) => segment !== '$defs'),
        ]
          .join('.')
          .replace(/[^A-Za-z0-9._-]/g, '_');
  const publish = (node: JsonSchema, ownId: string): JsonSchema => {
    const { $defs: _defs, ...rest } = node;
    return documentSchema(mapRefs(rest as JsonSchema, ownId, (target) => componentRef(add(target))));
  };
  const add = (target: RefTarget): string => {
    const name = nameOf(target);
    if (name in schemas) return name;
    schemas[name] = {}; // a placeholder first: a schema may refer to itself
    const schema = registry.get(target.id);
    if (!schema) throw new Error(`schema "${target.id}" is referenced but not in the registry`);
    const node =
      target.pointer === '' ? schema : atPointer(schema, target.pointer, `${target.id}#${target.pointer}`);
    schemas[name] = publish(node as JsonSchema, target.id);
    return name;
  };
  return { schemas, add, publish };
}

/** A schema's first `examples` entry: the operation's example of that part. */
function firstExample(schema: JsonSchema): unknown {
  return Array.isArray(schema.examples) ? structuredClone(schema.examples[0]) : undefined;
}

/**
 * A schema as the document publishes it: the validator's own keyword `errorMessage` (ajv-errors,
 * the wording of our answers) becomes the extension `x-error-message`, which OpenAPI tools accept.
 */
function documentSchema(schema: JsonSchema): JsonSchema {
  const schemaNode = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(schemaNode);
    if (typeof node !== 'object' || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'errorMessage') out['x-error-message'] = value;
      else if (DATA_KEYWORDS.has(key)) out[key] = value;
      else if (NAME_MAPS.has(key) && typeof value === 'object' && value !== null) {
        // Keys here are property or definition names, not keywords: never renamed.
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaNode(v)]));
      } else out[key] = schemaNode(value);
    }
    return out;
  };
  return schemaNode(schema) as JsonSchema;
}

/** Keywords whose value maps names (properties, definitions) to schemas. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
