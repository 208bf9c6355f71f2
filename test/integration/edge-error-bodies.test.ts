// Every answer of the public edge that is not a success is the JSON error body (docs/management-api.md): this walks the public route table with a valid key and sends each route every
// malformed form of a body (broken JSON, an unknown charset, a type it does not take, a
// compressed body, a body where none is taken). The edge's own steps (key, limits, body reader,
// validation) answer before the route's handler, an echo here. Each answer must be a 4xx with
// `application/json` and an error code, never HTML, a stack or a file path.
import { request } from 'node:http';
import type { RunningEdge } from '@lattice/edge';
import { PUBLIC_ROUTES } from '@lattice/http';
import { expect } from 'chai';
import { type EdgeSuite, echoToolkits, edgeSuite } from './edge/harness.ts';

const MALFORMED: Array<{ what: string; headers: Record<string, string>; body: string }> = [
  { what: 'broken JSON', headers: { 'content-type': 'application/json' }, body: '{"a":' },
  { what: 'charset latin9', headers: { 'content-type': 'application/json; charset=latin9' }, body: '{}' },
  { what: 'text/plain', headers: { 'content-type': 'text/plain' }, body: 'hello' },
  { what: 'gzip', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: 'xx' },
];

describe('public edge: the JSON error body on every route, for every malformed body', function () {
  this.timeout(120_000);
  let suite: EdgeSuite;
  let edge: RunningEdge;
  let productId: string;
  let key: string;

  before(async () => {
    suite = await edgeSuite();
    productId = await suite.newProduct();
    key = (await suite.createKey({ productId, environment: 'production' })).secret;
    edge = await suite.startEdge('production', { toolkits: echoToolkits(), notifications: false });
  });
  after(async () => suite?.close());

  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<{ status: number; type: string; text: string }> {
    const url = new URL(edge.url);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method,
          headers: {
            ...headers,
            authorization: `Bearer ${key}`,
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => {
            text += d.toString('utf8');
          });
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('answers each malformed body on each public route with a 4xx JSON error body', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const failures: string[] = [];
    for (const route of PUBLIC_ROUTES) {
      const path = `/${productId}/${route.toolkit}${route.path.replace(/\{[a-z_]+\}/g, id)}`;
      for (const m of MALFORMED) {
        const res = await send(route.method, path, m.headers, m.body);
        const where = `${route.method} ${path} with ${m.what}: ${res.status} ${res.type} ${res.text.slice(0, 120)}`;
        let code: unknown;
        try {
          code = (JSON.parse(res.text) as { error?: { code?: unknown } }).error?.code;
        } catch {
          code = undefined;
        }
        if (
          res.status < 400 ||
          res.status > 499 ||
          !/^application\/json/.test(res.type) ||
          typeof code !== 'string' ||
          /<html|<!doctype|node_modules|\/work\/|\bat [^ ]+:\d+:\d+/i.test(res.text)
        ) {
          failures.push(where);
        }
      }
    }
    expect(PUBLIC_ROUTES.length).to.be.greaterThan(10);
    expect(failures).to.deep.equal([]);
  });
});
