// @lattice/realtime-client as an integrator gets it: `npm pack` in this folder, the tarball
// installed offline into a fresh project outside the repository (no workspace link, no
// dependency), then against a running gateway with messages published over HTTP through the
// public edge: a plain Node script (no tsx) imports the package and receives, tsc resolves its
// types from the installed declarations, and a plain HTML page loading the installed
// dist/lattice-realtime.js receives in headless Chromium.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import {
  createGatewayBase,
  type GatewayBase,
  type TestGateway,
} from '../../../test/integration/gateway/harness.ts';
import {
  edge,
  mgmt,
  type Product,
  publicKey,
  type Stack,
} from '../../../test/integration/realtime-http/harness.ts';
import { launchChromium } from '../../../test/support/chromium.ts';
import { plainEnv, run, runOk } from '../../../test/support/plain-shell.ts';
import { waitUntil } from '../../../test/support/wait-until.ts';

const PACKAGE_DIR = dirname(import.meta.dirname);
const REPO_DIR = join(PACKAGE_DIR, '..', '..');
const TSC = join(REPO_DIR, 'node_modules', 'typescript', 'bin', 'tsc');
const NAME = '@lattice/realtime-client';

/** A plain Node program of the consumer project: subscribes, prints each step as a JSON line. */
const NODE_SCRIPT = `import { CLOSE_CODES, connect, RealtimeError } from '@lattice/realtime-client';

const [url, token, channel] = process.argv.slice(2);
const print = (line) => console.log(JSON.stringify(line));
const client = connect({ url, getToken: async () => token });
client.on('error', (e) => print({ error: e.message }));
const subscription = await client.subscribe(channel, {
  onMessage: async (message) => {
    print({ received: message });
    await client.close();
    print({ closed: client.state });
  },
});
print({
  subscribed: subscription.channel,
  resolved: import.meta.resolve('@lattice/realtime-client'),
  execArgv: process.execArgv,
  webSocket: typeof WebSocket,
  tooManyConnections: CLOSE_CODES.tooManyConnections,
  realtimeError: new RealtimeError('rate_limited', 'x') instanceof Error,
});
`;

/** TypeScript of the consumer project, checked with the installed declarations. */
const TYPES_CHECK = `import {
  CLOSE_CODES,
  connect,
  type HistoryResult,
  type MessagePush,
  type RealtimeClient,
  RealtimeError,
  type Subscription,
} from '@lattice/realtime-client';
import { connect as connectFromBundle } from '@lattice/realtime-client/lattice-realtime.js';

const client: RealtimeClient = connect({ url: 'ws://127.0.0.1:1', getToken: async () => 'token' });
const same: typeof connect = connectFromBundle;
const tooMany: 4429 = CLOSE_CODES.tooManyConnections;
client.on('disconnected', ({ code, rule }) => {
  const n: number = code;
  const r: 'fresh_token_at_once' | 'at_once' | 'backoff_and_recover' | 'backoff' = rule;
  return [n, r];
});
client.on('message', (m: MessagePush) => m.offset.toFixed());
const subscribed: Promise<Subscription> = client.subscribe('feed:x', {
  onMessage: (m) => m.epoch.toUpperCase(),
  recover: { offset: 3, epoch: 'e1' },
});
const history: Promise<HistoryResult> = client.history('feed:x', { last_n: 10 });
await client.publish('feed:x', { typing: true });
await client.presence.enter('feed:x', { info: { name: 'ann' }, ttlSeconds: 60 });
const error = new RealtimeError('rate_limited', 'slow down');
const code: 'invalid' | 'forbidden' | 'unavailable' | 'rate_limited' = error.code;
// @ts-expect-error client events carry JSON, not functions
await client.publish('feed:x', () => 1);
// @ts-expect-error a history selector is last_n, last_ms or a cursor
await client.history('feed:x', { first_n: 3 });
// @ts-expect-error only the protocol's error codes
new RealtimeError('teapot', 'no');
export { code, history, same, subscribed, tooMany };
`;

/** Strict, no DOM and no Node types, declarations checked too: what the package's types need alone. */
const tsconfig = (module: 'nodenext' | 'bundler') =>
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: module === 'nodenext' ? 'nodenext' : 'esnext',
      moduleResolution: module,
      lib: ['ES2022'],
      types: [],
      strict: true,
      skipLibCheck: false,
      noEmit: true,
    },
    files: ['check.ts'],
  });

/** A page of an integrator's site (not the demo): the bundle next to it, its settings inline. */
const page = (settings: { url: string; token: string; channel: string }) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>realtime client</title><link rel="icon" href="data:,"></head>
<body>
<script type="application/json" id="settings">${JSON.stringify(settings)}</script>
<script type="module">
  import { connect } from './lattice-realtime.js';
  const settings = JSON.parse(document.getElementById('settings').textContent);
  const state = (window.rtc = { subscribed: false, received: [], errors: [] });
  const client = connect({ url: settings.url, getToken: async () => settings.token });
  client.on('error', (e) => state.errors.push(e.message));
  await client.subscribe(settings.channel, { onMessage: (m) => state.received.push(m) });
  state.subscribed = true;
</script>
</body>
</html>
`;

interface PageState {
  subscribed: boolean;
  received: Array<{ channel: string; offset: number; data: unknown }>;
  errors: string[];
}

describe('@lattice/realtime-client packed and installed outside the repository', function () {
  this.timeout(240_000);
  let work: string;
  let consumer: string;
  let installed: string;
  let packedFiles: string[];
  let h: GatewayBase;
  let gw: TestGateway;
  let stack: Stack;
  let product: Product;
  let key: string;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'lattice-rtc-package-'));
    expect(
      relative(REPO_DIR, work).startsWith('..'),
      'the consumer project is outside the repository',
    ).to.equal(true);
    // npm pack builds dist/ first (prepack), then packs what `files` names. A dist/ this test
    // made is removed again: the repository's code never reads it (tsconfig paths lead to src/).
    const distDir = join(PACKAGE_DIR, 'dist');
    const distBefore = existsSync(distDir);
    const packed = await runOk('npm', ['pack', '--json', '--pack-destination', work], PACKAGE_DIR);
    if (!distBefore) await rm(distDir, { recursive: true, force: true });
    const [answer] = JSON.parse(packed.slice(packed.search(/^\[/m))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    packedFiles = answer!.files.map((f) => f.path).sort();
    consumer = join(work, 'consumer');
    await mkdir(consumer);
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'rtc-consumer', version: '1.0.0', private: true, type: 'module' }),
    );
    await runOk(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', join(work, answer!.filename)],
      consumer,
    );
    installed = join(consumer, 'node_modules', ...NAME.split('/'));

    h = await createGatewayBase('rtc-package');
    gw = await h.startGateway();
    stack = await h.base.startStack();
    product = await h.base.newProduct(stack.management);
    const ns = await mgmt(stack.management, 'PUT', '/realtime/namespaces/feed', product.ownerToken, {
      presence: true,
      client_events: true,
      history_window_seconds: 3600,
      archive_days: 0,
    });
    expect(ns.status).to.equal(201);
    key = await publicKey(stack, product);
  });
  after(async () => {
    await h?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** A token for `channel` from the public edge, as the integrator's backend gets one. */
  async function token(channel: string): Promise<string> {
    const issued = await edge<{ token: string }>(
      stack.edges.production,
      product.productId,
      'POST',
      '/tokens/issue',
      key,
      { subject: 'pkg', channels: [{ name: channel, ops: ['subscribe', 'history'] }] },
    );
    expect(issued.status).to.equal(200);
    return issued.body.token;
  }

  async function publish(channel: string, data: unknown): Promise<void> {
    const published = await edge(stack.edges.production, product.productId, 'POST', '/messages', key, {
      channel,
      data,
    });
    expect(published.status).to.equal(202);
  }

  it('packs built files only and installs as a plain package with no dependency', async () => {
    for (const path of packedFiles) {
      expect(path).to.match(/^(package\.json|README\.md|CHANGELOG\.md|dist\/[\w/-]+\.(js|d\.ts))$/);
    }
    expect(packedFiles).to.include.members([
      'package.json',
      'README.md',
      'CHANGELOG.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/lattice-realtime.js',
    ]);
    expect((await lstat(installed)).isSymbolicLink(), 'a copy, not a workspace link').to.equal(false);
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).to.include({ name: NAME, version: '0.1.0', type: 'module', sideEffects: false });
    expect(manifest).to.not.have.property('private');
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      expect(manifest, field).to.not.have.property(field);
    }
    // Every file the exports name is in the tarball.
    const targets = (exports: unknown): string[] =>
      typeof exports === 'string' ? [exports] : Object.values(exports as object).flatMap(targets);
    for (const target of targets(manifest.exports)) {
      expect(packedFiles, target).to.include(target.replace(/^\.\//, ''));
    }
    for (const file of ['index.js', 'lattice-realtime.js']) {
      const text = await readFile(join(installed, 'dist', file), 'utf8');
      expect(text, file).to.not.match(/from\s*["']@lattice\//);
      expect(text, file).to.not.match(/\brequire\s*\(|["']node:/);
    }
  });

  it('runs in a plain Node script: connects, subscribes and receives a message published over HTTP', async () => {
    const channel = 'feed:node';
    await writeFile(join(consumer, 'receive.mjs'), NODE_SCRIPT);
    const child = spawn(process.execPath, ['receive.mjs', gw.url, await token(channel), channel], {
      cwd: consumer,
      env: plainEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Array<Record<string, unknown>> = [];
    let stderr = '';
    let buffered = '';
    child.stdout.on('data', (d) => {
      buffered += d;
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, i)) as Record<string, unknown>);
        buffered = buffered.slice(i + 1);
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await waitUntil(
        `the script subscribed (${stderr})`,
        () => lines.some((l) => 'subscribed' in l),
        30_000,
      );
      expect(lines.find((l) => 'subscribed' in l)).to.deep.equal({
        subscribed: channel,
        resolved: `file://${join(installed, 'dist', 'index.js')}`,
        execArgv: [],
        webSocket: 'function',
        tooManyConnections: 4429,
        realtimeError: true,
      });
      await publish(channel, { text: 'hello from HTTP' });
      expect(await exited, stderr).to.equal(0);
    } finally {
      child.kill();
    }
    const received = lines.find((l) => 'received' in l)?.received as Record<string, unknown> | undefined;
    expect(received).to.include({ push: 'message', channel, offset: 1 });
    expect(received?.data).to.deep.equal({ text: 'hello from HTTP' });
    expect(lines.filter((l) => 'error' in l)).to.deep.equal([]);
    expect(lines.at(-1)).to.deep.equal({ closed: 'closed' });
  });

  it("gives tsc the package's types from its declarations (Node and bundler resolution)", async () => {
    await writeFile(join(consumer, 'check.ts'), TYPES_CHECK);
    for (const resolution of ['nodenext', 'bundler'] as const) {
      const config = join(consumer, `tsconfig.${resolution}.json`);
      await writeFile(config, tsconfig(resolution));
      const ran = await run(process.execPath, [TSC, '-p', config], consumer);
      expect(ran.stdout + ran.stderr, resolution).to.equal('');
      expect(ran.code, resolution).to.equal(0);
    }
  });

  it('runs from the installed dist/lattice-realtime.js in a plain page in Chromium', async () => {
    const channel = 'feed:browser';
    const settings = { url: gw.url, token: await token(channel), channel };
    const bundle = await readFile(join(installed, 'dist', 'lattice-realtime.js'));
    const served: string[] = [];
    const server: Server = createServer((req, res) => {
      served.push(req.url ?? '');
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(settings));
      } else if (req.url === '/lattice-realtime.js') {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(bundle);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const tab = await browser.newPage();
      const problems: string[] = [];
      tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      tab.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      await tab.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const state = () => tab.evaluate(() => (globalThis as unknown as { rtc: PageState }).rtc);
      await waitUntil(
        'the page subscribed',
        async () => problems.length > 0 || (await state()).subscribed,
        30_000,
      );
      expect(problems).to.deep.equal([]);
      await publish(channel, { text: 'hello, page' });
      await waitUntil(
        'the page received the message',
        async () => (await state()).received.length > 0,
        30_000,
      );
      const final = await state();
      expect(final.received.map((m) => [m.channel, m.offset, m.data])).to.deep.equal([
        [channel, 1, { text: 'hello, page' }],
      ]);
      expect(final.errors).to.deep.equal([]);
      expect(problems).to.deep.equal([]);
      expect(served).to.deep.equal(['/', '/lattice-realtime.js']);
    } finally {
      await browser?.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
