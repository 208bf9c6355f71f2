// Every route of the management route table, fed bad input of every kind, must answer 4xx with
// the standard error body, never 5xx and never hang. Routes are read from the table, so a new
// route is swept without touching this file.
import { type ErrorBody, sha256Hex } from '@lattice/core';
import {
  createSchemaChecker,
  DEFAULT_BODY_LIMIT_BYTES,
  loadSchemaRegistry,
  type RouteDef,
} from '@lattice/http';
import { type RawResponse, rawHttp } from '@lattice/http/testing';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from './testing/test-management.ts';

const checkSchema = createSchemaChecker(loadSchemaRegistry());
const isErrorBody = (json: unknown) => json !== undefined && checkSchema('error-body', json).length === 0;

interface BadRequest {
  name: string;
  raw: (route: RouteDef, token: string) => string | Buffer;
}

function pathOf(route: RouteDef, value = 'abc123'): string {
  return route.path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, value);
}

function request(
  route: RouteDef,
  token: string,
  extra: { method?: string; path?: string; headers?: string[]; body?: string } = {},
): string {
  const body = extra.body ?? '';
  const lines = [
    `${extra.method ?? route.method} ${extra.path ?? pathOf(route)} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${token}`,
    ...(extra.headers ?? []),
    ...(body !== '' && !(extra.headers ?? []).some((h) => /^content-length:/i.test(h))
      ? [`Content-Length: ${Buffer.byteLength(body)}`]
      : []),
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

const capOf = (route: RouteDef) => route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;

const CASES: BadRequest[] = [
  {
    name: 'malformed JSON',
    raw: (r, t) => request(r, t, { headers: ['Content-Type: application/json'], body: '{"a": [1, 2,' }),
  },
  {
    name: 'JSON that is only a fragment',
    raw: (r, t) => request(r, t, { headers: ['Content-Type: application/json'], body: 'nul' }),
  },
  {
    name: 'wrong content type',
    raw: (r, t) => request(r, t, { headers: ['Content-Type: text/plain'], body: 'hello' }),
  },
  { name: 'no content type', raw: (r, t) => request(r, t, { body: '{}' }) },
  {
    name: 'non-UTF-8 charset',
    raw: (r, t) => request(r, t, { headers: ['Content-Type: application/json; charset=utf-32'], body: '{}' }),
  },
  {
    name: 'compressed body',
    raw: (r, t) =>
      request(r, t, { headers: ['Content-Type: application/json', 'Content-Encoding: gzip'], body: '{}' }),
  },
  {
    name: 'body one byte over the cap',
    raw: (r, t) =>
      request(r, t, { headers: ['Content-Type: application/json'], body: `{}${' '.repeat(capOf(r) - 1)}` }),
  },
  { name: 'unknown query parameter', raw: (r, t) => request(r, t, { path: `${pathOf(r)}?zz_unknown=1` }) },
  { name: 'nested query syntax', raw: (r, t) => request(r, t, { path: `${pathOf(r)}?a[b]=1&a[c]=2` }) },
  {
    name: 'undecodable percent-encoding',
    raw: (r, t) => request(r, t, { path: `${pathOf(r, '%E0%A4%A')}/%ZZ` }),
  },
  {
    name: 'bad path parameter',
    raw: (r, t) =>
      request(r, t, { path: pathOf(r, `${'x'.repeat(300)}%00`) + (r.path.includes(':') ? '' : '/x') }),
  },
  { name: 'path traversal', raw: (r, t) => request(r, t, { path: `${pathOf(r)}/../../etc/passwd` }) },
  {
    name: 'method the path does not have',
    raw: (r, t) => request(r, t, { method: r.method === 'PATCH' ? 'PUT' : 'PATCH' }),
  },
  { name: 'method HTTP does not know', raw: (r, t) => request(r, t, { method: 'BREW' }) },
  { name: 'NUL byte in a header value', raw: (r, t) => request(r, t, { headers: ['X-Junk: a\u0000b'] }) },
  { name: 'header line without colon', raw: (r, t) => request(r, t, { headers: ['this is not a header'] }) },
  {
    name: 'space before the colon',
    raw: (r, t) => request(r, t, { headers: ['Content-Type : application/json'] }),
  },
  {
    name: 'non-numeric Content-Length',
    raw: (r, t) => request(r, t, { headers: ['Content-Length: abc'], body: '{}' }),
  },
  {
    name: 'conflicting Content-Length',
    raw: (r, t) => request(r, t, { headers: ['Content-Length: 2', 'Content-Length: 3'], body: '{}' }),
  },
  {
    name: 'broken chunked encoding',
    raw: (r, t) =>
      request(r, t, {
        headers: ['Transfer-Encoding: chunked', 'Content-Type: application/json'],
        body: 'zz\r\n{}\r\n0\r\n\r\n',
      }),
  },
  {
    name: 'headers over 16 KiB',
    raw: (r, t) => request(r, t, { headers: [`X-Big: ${'a'.repeat(20_000)}`] }),
  },
  {
    name: 'binary garbage in Authorization',
    raw: (r, t) =>
      Buffer.concat([
        Buffer.from(`${r.method} ${pathOf(r)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer `),
        Buffer.from([0xff, 0xfe, 0x80, 0x81]),
        Buffer.from(
          `\r\nX-Token-Was: ${t.length}\r\nContent-Type: application/json\r\nContent-Length: 1\r\nConnection: close\r\n\r\n{`,
        ),
      ]),
  },
];

describe('bad input sweep over every management route (real server)', () => {
  let t: TestManagement;
  let token: string;

  before(async () => {
    t = await startTestManagement();
    token = (await t.newProduct('sweep')).owner_token;
  });
  after(() => t.close());

  it('covers a route table that is not empty', () => {
    expect(t.routes.length).to.be.greaterThan(3);
    expect(t.routes.map((r) => r.operationId)).to.include.members([
      'organization_product_get',
      'organization_public-keys_create',
      'organization_public-keys_list',
      'organization_public-keys_update-scope',
      'organization_public-keys_revoke',
      'organization_public-keys_import',
      'mail_apikey_create',
      'mail_apikey_list',
      'mail_apikey_delete',
      'realtime_apikey_create',
      'realtime_apikey_list',
      'realtime_apikey_delete',
    ]);
  });

  it('answers every bad request on every route with a 4xx and the error body', async function () {
    this.timeout(120_000);
    const failures: string[] = [];
    for (const route of t.routes) {
      for (const c of CASES) {
        let r: RawResponse;
        try {
          r = await rawHttp(t.server.port, c.raw(route, token), 10_000);
        } catch (err) {
          failures.push(`${route.operationId} / ${c.name}: ${(err as Error).message.slice(0, 200)}`);
          continue;
        }
        const label = `${route.operationId} / ${c.name}: ${r.status} ${r.text.slice(0, 200)}`;
        if (r.status < 400 || r.status > 499) failures.push(label);
        else if (!isErrorBody(r.json)) failures.push(`${label} (not the error body)`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('refuses a junk or foreign credential on every authenticated route with invalid_token', async () => {
    const tokens = createTokens(token);
    for (const route of t.routes.filter((r) => r.auth === 'management')) {
      for (const bad of tokens) {
        const r = await rawHttp(t.server.port, request(route, bad));
        expect(r.status, `${route.operationId} ${bad}`).to.equal(401);
        expect((r.json as ErrorBody).error.code).to.equal('invalid_token');
      }
    }
  });

  it('is still healthy afterwards, and nothing reached the database as plaintext', async () => {
    const res = await fetch(`${t.server.url}/healthz`);
    expect(res.status).to.equal(200);
    const rows = await t.db('member_tokens').where({ token_hash: sha256Hex(token) });
    expect(rows).to.have.length(1);
  });
});

function createTokens(valid: string): string[] {
  return [
    `${valid.slice(0, -2)}zz`,
    `${valid} ${valid}`,
    'lmt_',
    `lmt_${'g'.repeat(32)}`,
    `${'a'.repeat(4096)}`,
  ];
}
