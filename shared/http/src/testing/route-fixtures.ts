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
    unused: { $id: 'unused', type: 'string' },
  };
  return Object.values({ ...base, ...overrides });
}

export function fixtureRegistry(overrides: Record<string, JsonSchema> = {}): SchemaRegistry {
  return createSchemaRegistry(fixtureSchemas(overrides));
}

export const FIXTURE_BODY_LIMIT_BYTES = 100;

/** Accepts exactly `Authorization: Bearer good`. */
export const stubAuthenticator: Authenticator = async (req) => {
  if (req.headers.authorization === undefined)
    throw new ApiError(401, 'missing_token', 'authentication', 'no');
  if (req.headers.authorization !== 'Bearer good') {
    throw new ApiError(401, 'invalid_token', 'token_validation', 'bad');
  }
  return {
    productId: 'p1',
    credentialKind: 'member_token',
    credentialId: 't1',
    memberId: 'm1',
    role: 'owner',
  };
};

export function fixtureRoutes(): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/things/:id',
      operationId: 'things_get',
      summary: 'Get a thing',
      area: 'things',
      auth: 'management',
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
      area: 'things',
      auth: 'management',
      request: { params: 'thing-params' },
      responses: { 204: { description: 'Deleted' } },
      handler: () => ({ status: 204 }),
    },
    {
      method: 'POST',
      path: '/things',
      operationId: 'things_create',
      summary: 'Create a thing',
      description: 'Makes a new thing.',
      area: 'things',
      auth: 'management',
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
      area: 'system',
      auth: 'none',
      operational: true,
      responses: { 200: { contentType: 'text/plain' } },
      handler: () => ({ status: 200, body: 'ok', contentType: 'text/plain' }),
    },
  ];
}
