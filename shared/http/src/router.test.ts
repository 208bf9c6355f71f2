import { ApiError, createLogger, type ErrorBody } from '@lattice/core';
import { captureLogs } from '@lattice/core/testing';
import { expect } from 'chai';
import express from 'express';
import { buildRouter } from './router.ts';
import {
  FIXTURE_BODY_LIMIT_BYTES,
  fixtureRegistry,
  fixtureRoutes,
  stubAuthenticator,
} from './testing/route-fixtures.ts';
import { type Listening, listen, rawHttp } from './testing.ts';

const AUTH = { authorization: 'Bearer good' };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };

async function call(
  server: Listening,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
) {
  const res = await fetch(`${server.baseUrl}${path}`, { method, headers: init.headers, body: init.body });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as unknown) : undefined,
  };
}

function errorOf(json: unknown): ErrorBody['error'] {
  expect(json).to.be.an('object').with.property('error');
  return (json as ErrorBody).error;
}

/** A valid JSON document of exactly `bytes` bytes (trailing whitespace is insignificant). */
function jsonOfBytes(value: unknown, bytes: number): string {
  const text = JSON.stringify(value);
  if (text.length > bytes) throw new Error('value too large');
  return text + ' '.repeat(bytes - text.length);
}

describe('buildRouter', () => {
  let server: Listening;
  const logs = captureLogs({ name: 'router-test', level: 'info' });

  before(async () => {
    const app = express();
    const { logger } = logs;
    app.use(
      buildRouter(fixtureRoutes(), {
        schemas: fixtureRegistry(),
        logger,
        authenticators: { management: stubAuthenticator },
        validateResponses: true,
      }),
    );
    server = await listen(app);
  });
  after(() => server.close());

  it('runs the handler with coerced params, defaults and the principal', async () => {
    const r = await call(server, 'GET', '/things/abc', { headers: AUTH });
    expect(r.status).to.equal(200);
    expect(r.json).to.deep.equal({ id: 'abc@p1', name: 'n', limit: 50 });
    const r2 = await call(server, 'GET', '/things/abc?limit=7', { headers: AUTH });
    expect((r2.json as { limit: number }).limit).to.equal(7);
  });

  it('answers 400 validation_error naming every failing field', async () => {
    const r = await call(server, 'POST', '/things', {
      headers: JSON_AUTH,
      body: JSON.stringify({ name: 12, extra: true, tags: ['a', 1] }),
    });
    expect(r.status).to.equal(400);
    const error = errorOf(r.json);
    expect(error.code).to.equal('validation_error');
    expect(error.step).to.equal('validation');
    expect(error.message).to.be.a('string');
    const paths = error.fields!.map((f) => f.path);
    expect(paths).to.include.members(['body.name', 'body.extra', 'body.tags[1]']);
    expect(error.fields!.find((f) => f.path === 'body.extra')!.message).to.equal('is not allowed');
  });

  it('reads a missing body as {} so the missing fields are named', async () => {
    const r = await call(server, 'POST', '/things', { headers: AUTH });
    expect(r.status).to.equal(400);
    expect(errorOf(r.json).fields).to.deep.equal([{ path: 'body.name', message: 'is required' }]);
  });

  it('validates params and query, and refuses unknown query parameters', async () => {
    const r = await call(server, 'GET', '/things/A!?limit=0&bogus=1', { headers: AUTH });
    expect(r.status).to.equal(400);
    const paths = errorOf(r.json).fields!.map((f) => f.path);
    expect(paths).to.have.members(['params.id', 'query.limit', 'query.bogus']);
    const repeated = await call(server, 'GET', '/things/abc?limit=1&limit=2', { headers: AUTH });
    expect(errorOf(repeated.json).fields!.map((f) => f.path)).to.deep.equal(['query.limit']);
  });

  it('accepts a body of exactly the cap and answers 413 one byte over it', async () => {
    const exact = jsonOfBytes({ name: 'x' }, FIXTURE_BODY_LIMIT_BYTES);
    expect(Buffer.byteLength(exact)).to.equal(FIXTURE_BODY_LIMIT_BYTES);
    const ok = await call(server, 'POST', '/things', { headers: JSON_AUTH, body: exact });
    expect(ok.status).to.equal(201);

    const over = jsonOfBytes({ name: 'x' }, FIXTURE_BODY_LIMIT_BYTES + 1);
    const r = await call(server, 'POST', '/things', { headers: JSON_AUTH, body: over });
    expect(r.status).to.equal(413);
    expect(errorOf(r.json)).to.include({ code: 'payload_too_large', step: 'body_parsing' });
  });

  it('answers 413 for a chunked body that grows past the cap', async () => {
    const chunk = jsonOfBytes({ name: 'x' }, FIXTURE_BODY_LIMIT_BYTES + 50);
    const raw =
      'POST /things HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nContent-Type: application/json\r\n' +
      `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`;
    const r = await rawHttp(server.port, raw);
    expect(r.status).to.equal(413);
    expect(errorOf(r.json).code).to.equal('payload_too_large');
  });

  it('answers 400 invalid_json for malformed JSON', async () => {
    const r = await call(server, 'POST', '/things', { headers: JSON_AUTH, body: '{"name": "x",' });
    expect(r.status).to.equal(400);
    expect(errorOf(r.json)).to.deep.equal({
      code: 'invalid_json',
      message: 'Request body is not valid JSON',
      step: 'body_parsing',
    });
  });

  it('answers 415 for bodies that are not UTF-8 JSON', async () => {
    for (const headers of [
      { ...AUTH, 'content-type': 'text/plain' },
      { ...AUTH, 'content-type': 'application/json; charset=latin1' },
      { ...JSON_AUTH, 'content-encoding': 'gzip' },
    ]) {
      const r = await call(server, 'POST', '/things', { headers, body: '{"name":"x"}' });
      expect(r.status, JSON.stringify(headers)).to.equal(415);
      expect(errorOf(r.json).code).to.match(/^unsupported_/);
    }
  });

  it('refuses a body on an operation that takes none', async () => {
    const r = await rawHttp(
      server.port,
      'GET /things/abc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(r.status).to.equal(400);
    expect(errorOf(r.json).code).to.equal('unexpected_body');
  });

  it('authenticates before reading the body', async () => {
    const r = await call(server, 'POST', '/things', {
      headers: { 'content-type': 'application/json' },
      body: '{bad',
    });
    expect(r.status).to.equal(401);
    expect(errorOf(r.json).code).to.equal('missing_token');
  });

  it('answers 404 not_found for unknown paths, case-sensitively', async () => {
    for (const path of ['/nope', '/THINGS/abc', '/things/abc/more', '/things']) {
      const r = await call(server, 'GET', path);
      expect(r.status, path).to.equal(path === '/things' ? 405 : 404);
      if (r.status === 404) expect(errorOf(r.json)).to.include({ code: 'not_found', step: 'routing' });
    }
  });

  it('answers 405 method_not_allowed with Allow for a known path', async () => {
    const r = await call(server, 'PUT', '/things/abc', { headers: AUTH });
    expect(r.status).to.equal(405);
    expect(r.headers.get('allow')).to.equal('DELETE, GET, HEAD');
    expect(errorOf(r.json)).to.include({ code: 'method_not_allowed', step: 'routing' });
    const post = await call(server, 'GET', '/things/');
    expect(post.headers.get('allow')).to.equal('POST');
  });

  it('maps an unexpected error to a generic 500 and logs the details', async () => {
    const r = await call(server, 'GET', '/boom');
    expect(r.status).to.equal(500);
    expect(r.json).to.deep.equal({
      error: { code: 'internal_error', message: 'Internal server error', step: 'internal' },
    });
    expect(r.text).to.not.include('hunter2');
    expect(logs.lines.some((l) => l.msg === 'unhandled error' && l.operationId === 'boom_get')).to.equal(
      true,
    );
  });

  it('answers 500 when a handler answers off its declared schema', async () => {
    const r = await call(server, 'GET', '/wrong-answer');
    expect(r.status).to.equal(500);
    expect(errorOf(r.json).code).to.equal('internal_error');
  });

  it('sends a declared error answer, and turns an undeclared one into a logged 500', async () => {
    const declared = await call(server, 'DELETE', '/things/missing', { headers: AUTH });
    expect(declared.status).to.equal(404);
    expect(errorOf(declared.json)).to.include({ code: 'not_found', step: 'lookup' });
    const undeclared = await call(server, 'DELETE', '/things/locked', { headers: AUTH });
    expect(undeclared.status).to.equal(500);
    expect(errorOf(undeclared.json).code).to.equal('internal_error');
    const logged = logs.lines.some((l) => l.operationId === 'things_delete' && l.code === 'thing_locked');
    expect(logged).to.equal(true);
  });

  it('answers 400 for a path parameter that cannot be percent-decoded', async () => {
    const r = await rawHttp(
      server.port,
      'GET /things/%E0%A4%A HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nConnection: close\r\n\r\n',
    );
    expect(r.status).to.equal(400);
    expect(errorOf(r.json).code).to.equal('bad_request');
  });

  it('serves non-JSON operational answers as declared', async () => {
    const r = await call(server, 'GET', '/healthz');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^text\/plain/);
    expect(r.text).to.equal('ok');
  });
});

describe('buildRouter route-table checks', () => {
  const logger = createLogger({ name: 'test', level: 'silent' });
  const build = (routes = fixtureRoutes(), authenticators = { management: stubAuthenticator }) =>
    buildRouter(routes, { schemas: fixtureRegistry(), logger, authenticators });

  it('fails at build time, naming the route, when the table is inconsistent', () => {
    const routes = fixtureRoutes();
    expect(() => build([...routes, { ...routes[0]!, path: '/other/:id' }])).to.throw(
      /things_get.*duplicate operationId/,
    );
    expect(() => build([{ ...routes[0]!, path: '/things/:key' }])).to.throw(/params schema declares \[id\]/);
    expect(() => build([{ ...routes[2]!, request: { body: 'missing' } }])).to.throw(
      /"missing" is not in the registry/,
    );
    expect(() =>
      build([{ ...routes[0]!, request: { params: 'thing-params', body: 'thing-create' } }]),
    ).to.throw(/GET routes take no body/);
    expect(() => build([{ ...routes[0]!, path: '/things/{id}' }])).to.throw(/neither a literal nor :name/);
    expect(() => build([{ ...routes[0]!, operationId: 'Bad Name' }])).to.throw(/operationId must match/);
    expect(() => build([{ ...routes[0]!, responses: { 200: 'thing', 404: 'error-body' } }])).to.throw(
      /error status 404 belongs in errors/,
    );
    expect(() => build([{ ...routes[0]!, description: ' ' }])).to.throw(/description is empty/);
    expect(() => build(routes, {} as never)).to.throw(/needs a "management" authenticator/);
  });
});

describe('buildRouter authorize hook', () => {
  let server: Listening;
  const seen: string[] = [];

  before(async () => {
    const app = express();
    const routes = fixtureRoutes().map((r) =>
      r.operationId === 'things_create' ? { ...r, access: { roles: ['admin'] as const } } : r,
    );
    app.use(
      buildRouter(routes, {
        schemas: fixtureRegistry(),
        logger: createLogger({ name: 'test', level: 'silent' }),
        authenticators: { management: stubAuthenticator },
        authorize(principal, route) {
          seen.push(`${principal.productId} ${route.operationId}`);
          if (route.access?.roles && !route.access.roles.includes(principal.role!)) {
            throw new ApiError(403, 'forbidden', 'authorization', 'no');
          }
        },
      }),
    );
    server = await listen(app);
  });
  after(() => server.close());

  it('runs after authentication with the route, and refuses before the body is read', async () => {
    expect((await call(server, 'GET', '/things/abc', { headers: AUTH })).status).to.equal(200);
    // Malformed JSON would be a 400 if the body were read: the refusal comes first.
    const r = await call(server, 'POST', '/things', { headers: JSON_AUTH, body: '{"name": ' });
    expect(r.status).to.equal(403);
    expect(errorOf(r.json).code).to.equal('forbidden');
    expect(seen).to.deep.equal(['p1 things_get', 'p1 things_create']);
    // Unauthenticated callers never reach the hook.
    expect((await call(server, 'POST', '/things')).status).to.equal(401);
    expect(seen).to.have.length(2);
  });
});
