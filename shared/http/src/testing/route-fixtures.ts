// Route table and schemas used by this package's unit tests (not in `@lattice/http/testing`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiError } from '@lattice/core';
import type { Authenticator, RouteDef } from '../route-def.ts';
import {
  createSchemaRegistry,
  HTTP_SCHEMAS_DIR,
  type JsonSchema,
  type SchemaRegistry,
} from '../schema-registry.ts';

export const errorBodySchema = JSON.parse(
  readFileSync(path.join(HTTP_SCHEMAS_DIR, 'error-body.json'), 'utf8'),
) as JsonSchema;

export function fixtureSchemas(overrides: Record<string, JsonSchema> = {}): JsonSchema[] {
  const base: Record<string, JsonSchema> = {
    'error-body': errorBodySchema,
    'thing-params': {
      $id: 'thing-params',
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: { id: { type: 'string', pattern: '^[a-z0-9]{3,10}$', description: 'Thing id' } },
    },
    'thing-query': {
      $id: 'thing-query',
      type: 'object',
      additionalProperties: false,
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
        cursor: { type: 'string' },
      },
    },
    'thing-create': {
      $id: 'thing-create',
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      examples: [{ name: 'lamp' }],
      properties: {
        name: { $ref: 'common#/$defs/name' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      },
    },
    thing: {
      $id: 'thing',
      type: 'object',
      required: ['id', 'name'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        name: { $ref: 'common#/$defs/name' },
        limit: { type: 'integer' },
      },
    },
    common: {
      $id: 'common',
      $defs: { name: { type: 'string', minLength: 1, maxLength: 20 } },
    },
    'thing-headers': {
      $id: 'thing-headers',
      type: 'object',
      properties: {
        'Idempotency-Key': { type: 'string', maxLength: 255, examples: ['k-1'] },
        Prefer: { type: 'string', description: 'RFC 7240' },
      },
    },
    unused: { $id: 'unused', type: 'string' },
  };
  return Object.values({ ...base, ...overrides });
}

export function fixtureRegistry(overrides: Record<string, JsonSchema> = {}): SchemaRegistry {
  return createSchemaRegistry(fixtureSchemas(overrides));
}

export const FIXTURE_BODY_LIMIT_BYTES = 100;

const missingToken = () => new ApiError(401, 'missing_token', 'authentication', 'no');
const invalidToken = () => new ApiError(401, 'invalid_token', 'token_validation', 'bad');
export const THING_NOT_FOUND = () => new ApiError(404, 'not_found', 'lookup', 'No thing with this id');

/** The refusals of stubAuthenticator, declared on the fixture routes that use it. */
export const STUB_AUTH_ERRORS: readonly ApiError[] = [missingToken(), invalidToken()];

/** Accepts exactly `Authorization: Bearer good`. */
export const stubAuthenticator: Authenticator = async (req) => {
  if (req.headers.authorization === undefined) throw missingToken();
  if (req.headers.authorization !== 'Bearer good') throw invalidToken();
  return {
    productId: 'p1',
    credentialKind: 'member_token',
    credentialId: 't1',
    memberId: 'm1',
    role: 'owner',
  };
};

/** things_create as it reads request headers (`Idempotency-Key`, `Prefer`), and may answer 202. */
export function withHeaderParameters(routes: RouteDef[]): RouteDef[] {
  return routes.map((r) =>
    r.operationId === 'things_create'
      ? {
          ...r,
          request: { ...r.request, headers: 'thing-headers' },
          responses: {
            201: { schema: 'thing', headers: { 'Preference-Applied': '`return=representation`' } },
            202: 'thing',
          },
        }
      : r,
  );
}

export function fixtureRoutes(): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/things/:id',
      operationId: 'things_get',
      summary: 'Get a thing',
      description: 'Get a thing (fixture).',
      area: 'things',
      auth: 'management',
      errors: STUB_AUTH_ERRORS,
      request: { params: 'thing-params', query: 'thing-query' },
      responses: { 200: 'thing' },
      handler: ({ params, query, principal }) => ({
        status: 200,
        body: { id: `${params.id}@${principal?.productId}`, name: 'n', limit: query.limit },
      }),
    },
    {
      method: 'DELETE',
      path: '/things/:id',
      operationId: 'things_delete',
      summary: 'Delete a thing',
      description: 'Delete a thing (fixture).',
      area: 'things',
      auth: 'management',
      errors: [...STUB_AUTH_ERRORS, THING_NOT_FOUND()],
      request: { params: 'thing-params' },
      responses: { 204: { description: 'Deleted' } },
      handler: ({ params }) => {
        // `missing` is a declared refusal; `locked` one the route forgot to declare.
        if (params.id === 'missing') throw THING_NOT_FOUND();
        if (params.id === 'locked') throw new ApiError(409, 'thing_locked', 'state', 'The thing is locked');
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: '/things',
      operationId: 'things_create',
      summary: 'Create a thing',
      description: 'Makes a new thing.',
      area: 'things',
      auth: 'management',
      errors: STUB_AUTH_ERRORS,
      request: { body: 'thing-create' },
      bodyLimitBytes: FIXTURE_BODY_LIMIT_BYTES,
      responses: { 201: 'thing' },
      handler: ({ body }) => ({ status: 201, body: { id: 'new', name: (body as { name: string }).name } }),
    },
    {
      method: 'GET',
      path: '/boom',
      operationId: 'boom_get',
      summary: 'Fails unexpectedly',
      description: 'Fails unexpectedly (fixture).',
      area: 'system',
      auth: 'none',
      responses: { 200: 'thing' },
      handler: () => {
        throw new Error('secret internals: password=hunter2');
      },
    },
    {
      method: 'GET',
      path: '/wrong-answer',
      operationId: 'wrong-answer_get',
      summary: 'Answers off-schema',
      description: 'Answers off-schema (fixture).',
      area: 'system',
      auth: 'none',
      responses: { 200: 'thing' },
      handler: () => ({ status: 200, body: { nope: true } }),
    },
    {
      method: 'GET',
      path: '/healthz',
      operationId: 'system_health',
      summary: 'Liveness',
      description: 'Liveness (fixture).',
      area: 'system',
      auth: 'none',
      operational: true,
      responses: { 200: { contentType: 'text/plain' } },
      handler: () => ({ status: 200, body: 'ok', contentType: 'text/plain' }),
    },
  ];
}
