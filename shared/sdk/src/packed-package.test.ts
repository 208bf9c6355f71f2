import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

// What an integrator gets: `npm pack` in shared/sdk (which builds dist/ with tsc), the tarball
// installed into a project of its own outside the repository, then used from JavaScript and
// type-checked from TypeScript. Nothing of the monorepo is reachable from there.
const run = promisify(execFile);
const PACKAGE_DIR = join(import.meta.dirname, '..');
const REPO_NODE_MODULES = join(PACKAGE_DIR, '..', '..', 'node_modules');

describe('@lattice/sdk as packed by npm pack', function () {
  this.timeout(180_000);
  let dir: string;
  let app: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lattice-sdk-pack-'));
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE_DIR });
    const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [
      { filename: string },
    ];
    app = join(dir, 'app');
    await mkdir(app);
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'integrator-app', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', join(dir, filename)],
      {
        cwd: app,
      },
    );
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs from an installed tarball: calls, pages, errors and verifyWebhook', async () => {
    await writeFile(
      join(app, 'check.mjs'),
      `
import { createServer } from 'node:http';
import { createHmac } from 'node:crypto';
import { Lattice, LatticeEdge, LatticeError, verifyWebhook, CATALOG_VERSION } from '@lattice/sdk';

const seen = [];
const server = createServer((req, res) => {
  seen.push(req.method + ' ' + req.url + ' ' + (req.headers['idempotency-key'] ? 'key' : 'nokey'));
  res.setHeader('content-type', 'application/json');
  if (req.url.startsWith('/organization/public-keys')) {
    const second = req.url.includes('cursor=');
    return res.end(JSON.stringify({ data: [{ id: second ? 'b' : 'a' }], next_cursor: second ? null : 'a' }));
  }
  if (req.url === '/p1/mail/emails') { res.statusCode = 202; return res.end('{"id":"e1"}'); }
  res.statusCode = 400;
  res.setHeader('x-request-id', 'rq1');
  res.end(JSON.stringify({ error: { code: 'validation_error', message: 'm', step: 'validation', fields: [{ path: 'body.name', message: 'x' }] } }));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const baseUrl = 'http://127.0.0.1:' + server.address().port;
const lattice = new Lattice({ apiKey: 'lmt_x', baseUrl });
const ids = [];
for await (const key of lattice.organization.publicKeys.list({ limit: 1 })) ids.push(key.id);
let error;
try { await lattice.mail.domain.create({ name: '' }); } catch (err) { error = err; }
const edge = new LatticeEdge({ publicKey: 'lpk_x', productId: 'p1', baseUrl });
const sent = await edge.mail.email.send({ from: 'a@b.c', to: 'd@e.f', subject: 's', text: 't' });
const secret = 'whsec_' + Buffer.from('k'.repeat(32)).toString('base64');
const ts = String(Math.floor(Date.now() / 1000));
const sig = createHmac('sha256', Buffer.from('k'.repeat(32))).update('m1.' + ts + '.{"a":1}').digest('base64');
const event = verifyWebhook(secret, { 'webhook-id': 'm1', 'webhook-timestamp': ts, 'webhook-signature': 'v1,' + sig }, '{"a":1}');
server.close();
console.log(JSON.stringify({ ids, error: { isLattice: error instanceof LatticeError, code: error.code, status: error.status, requestId: error.requestId, fields: error.fields }, sent, event, seen, catalog: typeof CATALOG_VERSION }));
`,
    );
    const { stdout } = await run(process.execPath, ['check.mjs'], { cwd: app });
    expect(JSON.parse(stdout)).to.deep.equal({
      ids: ['a', 'b'],
      error: {
        isLattice: true,
        code: 'validation_error',
        status: 400,
        requestId: 'rq1',
        fields: [{ path: 'body.name', message: 'x' }],
      },
      sent: { id: 'e1' },
      event: { a: 1 },
      seen: [
        'GET /organization/public-keys?limit=1 nokey',
        'GET /organization/public-keys?limit=1&cursor=a nokey',
        'POST /mail/domains nokey',
        'POST /p1/mail/emails key',
      ],
      catalog: 'string',
    });
  });

  it('ships type declarations a strict TypeScript project compiles against', async () => {
    await mkdir(join(app, 'node_modules', '@types'), { recursive: true });
    await symlink(join(REPO_NODE_MODULES, '@types', 'node'), join(app, 'node_modules', '@types', 'node'));
    await writeFile(
      join(app, 'check.ts'),
      `
import { Lattice, LatticeError, type PublicKey, type WebhookEvent, verifyWebhook } from '@lattice/sdk';

export async function main(): Promise<string[]> {
  const lattice = new Lattice({ apiKey: 'lmt_x' });
  const created = await lattice.organization.publicKeys.create({ name: 'n', scope: { kind: 'toolkit', toolkit: 'realtime' } });
  const secret: string = created.key;
  const page = await lattice.organization.publicKeys.list({ limit: 10 });
  const cursor: string | null = page.next_cursor;
  const names: string[] = [secret, cursor ?? ''];
  for await (const key of lattice.organization.publicKeys.list()) {
    const k: PublicKey = key;
    names.push(k.name);
  }
  const accepted = await lattice.mail.email.send({ from: 'a@b.c', to: 'd@e.f', subject: 's', 'Idempotency-Key': 'k1' });
  names.push(accepted.id);
  await lattice.organization.publicKeys.updateScope({ id: 'k', scope: { kind: 'toolkit', toolkit: 'mail' } });
  const event = verifyWebhook<WebhookEvent>('whsec_x', {}, '');
  names.push(event.type);
  try {
    await lattice.realtime.message.publish({ channel: 'c', data: {}, Prefer: 'return=representation' });
  } catch (err) {
    if (err instanceof LatticeError) names.push(err.code, err.step, String(err.status), err.requestId ?? '', ...err.fields.map((f) => f.path));
  }
  // @ts-expect-error: a required argument is missing
  await lattice.mail.domain.get({});
  return names;
}
`,
    );
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
    const tsc = join(REPO_NODE_MODULES, 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).catch(
      (err: { stdout: string }) => ({ stdout: err.stdout }),
    );
    expect(result.stdout).to.equal('');
  });
});
