// Every answer of the management API that is not a success is the JSON error body (docs/management-api.md): this walks the whole route table (catalog and operational routes, /mcp included)
// and sends each route every malformed form of a body: broken JSON, an unknown charset, a type
// that is not JSON, a compressed body, and a body where none is taken. Each answer must be a 4xx
// with `application/json` and an error code, never HTML, a stack or a file path.
import { request } from 'node:http';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from './testing/test-management.ts';

interface Answer {
  status: number;
  type: string;
  text: string;
}

const MALFORMED: Array<{ what: string; headers: Record<string, string>; body: string }> = [
  { what: 'broken JSON', headers: { 'content-type': 'application/json' }, body: '{"a":' },
  { what: 'charset latin9', headers: { 'content-type': 'application/json; charset=latin9' }, body: '{}' },
  { what: 'text/plain', headers: { 'content-type': 'text/plain' }, body: 'hello' },
  { what: 'gzip', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: 'xx' },
];

describe('management API: the JSON error body on every route, for every malformed body', function () {
  this.timeout(120_000);
  let t: TestManagement;
  let owner: string;

  before(async () => {
    t = await startTestManagement();
    owner = (await t.newProduct('error-bodies')).owner_token;
  });
  after(() => t?.close());

  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<Answer> {
    const url = new URL(t.server.url);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method,
          headers: {
            ...headers,
            authorization: `Bearer ${owner}`,
            accept: 'application/json, text/event-stream',
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

  it('answers each malformed body on each route with a 4xx JSON error body', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const targets = [
      ...t.routes.map((r) => ({ method: r.method, path: r.path.replace(/:[A-Za-z_]+/g, id) })),
      { method: 'POST', path: '/mcp' },
    ];
    expect(targets.length).to.be.greaterThan(40);
    const failures: string[] = [];
    for (const target of targets) {
      for (const m of MALFORMED) {
        const res = await send(target.method, target.path, m.headers, m.body);
        const where = `${target.method} ${target.path} with ${m.what}: ${res.status} ${res.type} ${res.text.slice(0, 120)}`;
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
    expect(failures).to.deep.equal([]);
  });
});
