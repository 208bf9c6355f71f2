// Both installable packages as an integrator gets them (issue #28): `npm pack` in shared/sdk and
// in shared/realtime-client, both tarballs installed offline into ONE fresh project outside the
// repository (copies, no workspace link), then a plain Node script of that project (`node`, no
// tsx) importing `@lattice/sdk` and `@lattice/realtime-client` against a running platform
// (`lattice start`, every role in one process, with its demo product's verified domain and local
// mailbox). With the management API's URL and a member token in its environment, the script
// issues a realtime token with the SDK, subscribes with the client and receives what the SDK
// publishes; sends an email with the SDK and reads it back until it is delivered; verifies, with
// the installed SDK's verifyWebhook, the delivery this test's HTTPS receiver got for that email's
// `email.delivered` (handed to it on stdin) and refuses tampered copies; and pages through the
// public keys one per page with `for await`. It prints one JSON line, asserted on here.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { createKafka } from '@lattice/kafka';
import { expect } from 'chai';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver.ts';
import { freePort, startPlatform, stopPlatform } from '../support/lattice-process.ts';
import { plainEnv, runOk } from '../support/plain-shell.ts';

const REPO_DIR = join(import.meta.dirname, '..', '..');
const PACKAGES = [
  { name: '@lattice/sdk', dir: join(REPO_DIR, 'shared', 'sdk') },
  { name: '@lattice/realtime-client', dir: join(REPO_DIR, 'shared', 'realtime-client') },
] as const;

/**
 * The integrator's program: plain JavaScript run by `node`, which knows of Lattice only what its
 * environment says (LATTICE_BASE_URL, LATTICE_API_KEY, read by `new Lattice()`; the sending domain
 * and the webhook URL) and the delivery it is handed on stdin.
 */
const SCRIPT = `import { connect } from '@lattice/realtime-client';
import { Lattice, verifyWebhook, WebhookVerificationError } from '@lattice/sdk';

// Progress on stderr, for a failure's message.
const t0 = Date.now();
const step = (what) => console.error(((Date.now() - t0) / 1000).toFixed(1) + ' s: ' + what);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const within = (ms, what, promise) => {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out waiting for ' + what)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

// Every request the SDK makes, to count the pages of the list below.
const requests = [];
const lattice = new Lattice({
  fetch: (input, init) => {
    const url = new URL(String(input));
    requests.push((init?.method ?? 'GET') + ' ' + url.pathname + url.search);
    return fetch(input, init);
  },
});

// 1. A namespace, and a token for one of its channels, both with the SDK.
step('start');
const channel = 'pkg:room-1';
const namespace = await lattice.realtime.namespace.put({ name: 'pkg', history_window_seconds: 60 });
const issued = await lattice.realtime.token.issue({
  subject: 'pkg-user',
  channels: [{ name: channel, ops: ['subscribe'] }],
  ttlSeconds: 300,
});

step('token issued');

// 2. Subscribed with the realtime client (Node's global WebSocket), published with the SDK.
let deliver;
const arrived = new Promise((resolve) => (deliver = resolve));
const clientErrors = [];
const client = connect({ url: issued.gatewayUrl, getToken: async () => issued.token });
client.on('error', (e) => clientErrors.push(e.message));
await client.subscribe(channel, { onMessage: (m) => deliver(m) });
step('subscribed');
const published = await lattice.realtime.message.publish({ channel, data: { text: 'hello from the SDK' } });
const message = await within(20_000, 'the published message', arrived);
step('received');
await client.close();

// 3. A webhook endpoint (before the send: it gets the events recorded after it), then an email,
//    read back until it is delivered.
const endpoint = await lattice.mail.webhook.create({
  url: process.env.WEBHOOK_URL,
  events: ['email.delivered'],
});
const sent = await lattice.mail.email.send({
  from: 'orders@' + process.env.MAIL_DOMAIN,
  to: 'ann@example.org',
  subject: 'Shipped',
  text: 'On its way.',
});
step('sent ' + sent.id);
let email = await lattice.mail.email.get({ id: sent.id });
for (const deadline = Date.now() + 60_000; email.status !== 'delivered' && Date.now() < deadline; ) {
  await sleep(200);
  email = await lattice.mail.email.get({ id: sent.id });
}

step('email ' + email.status);

// 4. The delivery the platform posted for that email, as the receiver got it (raw body, headers).
let handed = '';
for await (const chunk of process.stdin) handed += chunk;
step('delivery handed over');
const delivery = JSON.parse(handed);
const rawBody = Buffer.from(delivery.body, 'base64');
const event = verifyWebhook(endpoint.secret, delivery.headers, rawBody);
const refusal = (headers, body) => {
  try {
    verifyWebhook(endpoint.secret, headers, body);
    return 'accepted';
  } catch (err) {
    return err instanceof WebhookVerificationError ? 'WebhookVerificationError: ' + err.message : String(err);
  }
};
const tampered = {
  body: refusal(delivery.headers, rawBody.toString('utf8').replace('ann@example.org', 'eve@example.org')),
  webhookId: refusal({ ...delivery.headers, 'webhook-id': 'msg_forged' }, rawBody),
};

// 5. Three public keys, then every key of the product, one per page.
const created = [];
for (const n of [1, 2, 3]) {
  const key = await lattice.organization.publicKeys.create({
    name: 'pkg key ' + n,
    scope: { kind: 'toolkit', toolkit: 'realtime' },
  });
  created.push(key.id);
}
const before = requests.length;
const listed = [];
for await (const key of lattice.organization.publicKeys.list({ limit: 1 })) listed.push(key.id);
const pages = requests.slice(before);

console.log(
  JSON.stringify({
    resolved: {
      sdk: import.meta.resolve('@lattice/sdk'),
      realtimeClient: import.meta.resolve('@lattice/realtime-client'),
    },
    execArgv: process.execArgv,
    webSocket: typeof WebSocket,
    realtime: {
      namespace: namespace.name,
      gatewayUrl: issued.gatewayUrl,
      tokenExpiresAt: issued.expiresAt,
      published,
      message: { id: message.id, channel: message.channel, offset: message.offset, data: message.data },
      clientErrors,
      clientState: client.state,
    },
    mail: {
      emailId: sent.id,
      status: email.status,
      endpointId: endpoint.id,
      secretPrefix: endpoint.secret.slice(0, 6),
      event,
      tampered,
    },
    pagination: { created, listed, pages },
  }),
);
`;

interface ScriptResult {
  resolved: { sdk: string; realtimeClient: string };
  execArgv: string[];
  webSocket: string;
  realtime: {
    namespace: string;
    gatewayUrl: string;
    tokenExpiresAt: string;
    published: { id: string; channel: string };
    message: { id: string; channel: string; offset: number; data: unknown };
    clientErrors: string[];
    clientState: string;
  };
  mail: {
    emailId: string;
    status: string;
    endpointId: string;
    secretPrefix: string;
    event: { type: string; timestamp: string; data: Record<string, unknown> };
    tampered: { body: string; webhookId: string };
  };
  pagination: { created: string[]; listed: string[]; pages: string[] };
}

describe('@lattice/sdk and @lattice/realtime-client installed together from their tarballs', function () {
  this.timeout(300_000);
  const config = testConfig();
  const prefix = `${uniqueName('pkgs')}.`;
  let work: string;
  let consumer: string;
  let dataDir: string;
  let receiver: HttpsReceiver;
  let platform: Awaited<ReturnType<typeof startPlatform>> | undefined;
  let api: string;
  let gatewayUrl: string;
  let token: string;
  let domain: string;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'lattice-packages-'));
    expect(relative(REPO_DIR, work).startsWith('..'), 'the project is outside the repository').to.equal(true);
    // npm pack builds dist/ first (prepack) and packs what `files` names; a dist/ made here is
    // removed again (the repository's code reads the sources).
    const tarballs: string[] = [];
    for (const { dir } of PACKAGES) {
      const distBefore = existsSync(join(dir, 'dist'));
      const packed = await runOk('npm', ['pack', '--json', '--pack-destination', work], dir);
      if (!distBefore) await rm(join(dir, 'dist'), { recursive: true, force: true });
      const [answer] = JSON.parse(packed.slice(packed.search(/^\[/m))) as Array<{ filename: string }>;
      tarballs.push(join(work, answer!.filename));
    }
    consumer = join(work, 'app');
    await mkdir(consumer);
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'integrator-app', version: '1.0.0', private: true, type: 'module' }),
    );
    await runOk('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs], consumer);
    await writeFile(join(consumer, 'app.mjs'), SCRIPT);

    receiver = await startHttpsReceiver();
    dataDir = await mkdtemp(join(tmpdir(), 'lattice-packages-data-'));
    const port = await freePort();
    const sinkPort = await freePort();
    api = `http://127.0.0.1:${port}`;
    gatewayUrl = `ws://127.0.0.1:${await freePort()}`;
    platform = await startPlatform({
      MANAGEMENT_PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${await freePort()}`,
      PUBLIC_DEV_URL: `http://127.0.0.1:${await freePort()}`,
      GATEWAY_URL: gatewayUrl,
      GATEWAY_DEV_URL: `ws://127.0.0.1:${await freePort()}`,
      SMTP_SINK_PORT: String(sinkPort),
      SMTP_URL: `smtp://127.0.0.1:${sinkPort}`,
      INBOUND_SMTP_PORT: String(await freePort()),
      REDIS_KEY_PREFIX: `${uniqueName('pkgs')}:`,
      KAFKA_TOPIC_PREFIX: prefix,
      // A fresh data directory: a demo product of its own (with a verified domain). Its mail goes
      // to the platform's local mailbox, which SMTP_URL must name (its default stays port 2525).
      LATTICE_DATA_DIR: dataDir,
      // The receiver listens on this machine; it is trusted through NODE_EXTRA_CA_CERTS (the
      // test CA), which the platform inherits.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    const banner = platform.output();
    token = /owner_token\s+(lmt_[0-9a-f]{32})/.exec(banner)![1]!;
    domain = /verified domain\s+(\S+)/.exec(banner)![1]!;
  });

  after(async () => {
    if (platform) await stopPlatform(platform.child);
    await receiver?.close();
    if (work) await rm(work, { recursive: true, force: true });
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    const kafka = createKafka({
      brokers: config.kafkaBrokers,
      clientId: 'packages-installed-test',
      logger: createLogger({ name: 't', level: 'silent' }),
    });
    const admin = kafka.admin();
    await admin.connect();
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine });
    await admin.disconnect();
  });

  it('installs both as copies in one project, with the tarballs as its dependencies', async () => {
    const manifest = JSON.parse(await readFile(join(consumer, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies).to.deep.equal({
      '@lattice/realtime-client': 'file:../lattice-realtime-client-0.1.0.tgz',
      '@lattice/sdk': 'file:../lattice-sdk-0.1.0.tgz',
    });
    for (const { name } of PACKAGES) {
      const installed = join(consumer, 'node_modules', ...name.split('/'));
      expect((await lstat(installed)).isSymbolicLink(), `${name}: a copy, not a link`).to.equal(false);
    }
  });

  it('a plain Node script using both: realtime token, subscribe and publish, email delivered, its webhook verified, pages', async () => {
    const child = spawn(process.execPath, ['app.mjs'], {
      cwd: consumer,
      env: {
        ...plainEnv(),
        LATTICE_BASE_URL: api,
        LATTICE_API_KEY: token,
        MAIL_DOMAIN: domain,
        WEBHOOK_URL: receiver.url('/lattice/webhooks'),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let result: ScriptResult;
    try {
      // The real delivery of the email's event, handed to the script as its receiver got it.
      const [delivery] = await Promise.race([
        receiver
          .waitFor(1, 120_000)
          .catch((err: Error) => Promise.reject(new Error(`${err.message}\n${stderr}`))),
        exited.then((code) => Promise.reject(new Error(`the script exited (${code}) first:\n${stderr}`))),
      ]);
      child.stdin.end(
        `${JSON.stringify({ headers: delivery!.headers, body: delivery!.body.toString('base64') })}\n`,
      );
      const handedAt = Date.now();
      expect(await exited, stderr).to.equal(0);
      // Nothing either package leaves behind keeps Node running: the script ends by itself.
      expect(Date.now() - handedAt, 'the script ends once done').to.be.below(15_000);
      const lines = stdout.trim().split('\n');
      expect(lines, stdout).to.have.length(1);
      result = JSON.parse(lines[0]!) as ScriptResult;
      expect(delivery!.path).to.equal('/lattice/webhooks');
      expect(JSON.parse(delivery!.body.toString('utf8'))).to.deep.equal(result.mail.event);
    } finally {
      child.kill();
    }

    // It ran from the project's installed copies, in plain Node.
    expect(result.resolved).to.deep.equal({
      sdk: pathToFileURL(join(consumer, 'node_modules', '@lattice', 'sdk', 'dist', 'index.js')).href,
      realtimeClient: pathToFileURL(
        join(consumer, 'node_modules', '@lattice', 'realtime-client', 'dist', 'index.js'),
      ).href,
    });
    expect(result.execArgv).to.deep.equal([]);
    expect(result.webSocket).to.equal('function');

    // 1 and 2: the SDK's token let the client subscribe; the SDK's publish reached it.
    expect(result.realtime).to.include({ namespace: 'pkg', gatewayUrl, clientState: 'closed' });
    expect(Date.parse(result.realtime.tokenExpiresAt)).to.be.above(Date.now());
    expect(result.realtime.published.channel).to.equal('pkg:room-1');
    expect(result.realtime.message).to.deep.equal({
      id: result.realtime.published.id,
      channel: 'pkg:room-1',
      offset: 1,
      data: { text: 'hello from the SDK' },
    });
    expect(result.realtime.clientErrors).to.deep.equal([]);

    // 3 and 4: delivered, and its signed webhook accepted by the installed verifyWebhook, which
    // refuses a changed body or a changed webhook-id.
    expect(result.mail.status).to.equal('delivered');
    expect(result.mail.secretPrefix).to.equal('whsec_');
    expect(result.mail.event.type).to.equal('email.delivered');
    expect(result.mail.event.data).to.include({
      emailId: result.mail.emailId,
      type: 'delivered',
      recipient: 'ann@example.org',
    });
    expect(result.mail.tampered.body).to.match(/^WebhookVerificationError: /);
    expect(result.mail.tampered.webhookId).to.match(/^WebhookVerificationError: /);
    expect(receiver.requests).to.have.length(1);

    // 5: every key, each once, one page at a time.
    const { created, listed, pages } = result.pagination;
    expect(created).to.have.length(3);
    expect(listed).to.include.members(created);
    expect(new Set(listed).size).to.equal(listed.length);
    expect(pages.length).to.be.within(listed.length, listed.length + 1);
    expect(pages[0]).to.equal('GET /organization/public-keys?limit=1');
    for (const page of pages.slice(1))
      expect(page).to.match(/^GET \/organization\/public-keys\?limit=1&cursor=/);
  });
});
