// The `lattice` command as a user runs it: bootstrap prints one JSON object and stores only a
// hash; `lattice start` brings up every role, prints the demo product, serves it, stops cleanly
// on SIGTERM and finds the same demo product on the next start.
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, sha256Hex } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { createKafka, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import nodemailer from 'nodemailer';
import { freePort, run, startPlatform, stopPlatform } from '../support/lattice-process.ts';
import { TestSocket } from './gateway/ws-client.ts';

const config = testConfig();

/** A Kafka admin client of the test broker, connected; the caller disconnects it. */
async function connectedAdmin() {
  const kafka = createKafka({
    brokers: config.kafkaBrokers,
    clientId: 'cli-test',
    logger: createLogger({ name: 't', level: 'silent' }),
  });
  const admin = kafka.admin();
  await admin.connect();
  return admin;
}

describe('lattice command', function () {
  this.timeout(180_000);
  let db: Knex;

  before(() => {
    db = knex({ client: 'pg', connection: config.databaseUrl, pool: { min: 0, max: 2 } });
  });
  after(async () => db?.destroy());

  describe('bootstrap', () => {
    it('prints exactly {product_id, owner_token} and stores the token only as a hash', async () => {
      const name = uniqueName('boot');
      // Default log level: logs go to stderr, stdout carries only the JSON object.
      const r = await run(['bootstrap', '--product', name, '--verified-domain', 'Mail.Example.com'], {
        LOG_LEVEL: 'info',
      });
      expect(r.code, r.stderr).to.equal(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines).to.have.length(1);
      const printed = JSON.parse(lines[0]!) as Record<string, string>;
      expect(Object.keys(printed).sort()).to.deep.equal(['owner_token', 'product_id']);
      expect(printed.owner_token).to.match(/^lmt_[0-9a-f]{32}$/);

      const product = await db('products').where({ id: printed.product_id }).first();
      expect(product.name).to.equal(name);
      const tokens = await db('member_tokens').where({ product_id: printed.product_id });
      expect(tokens).to.have.length(1);
      expect(tokens[0].token_hash).to.equal(sha256Hex(printed.owner_token!));
      expect(JSON.stringify(tokens)).to.not.include(printed.owner_token!.slice(4));
      const member = await db('members').where({ id: tokens[0].member_id }).first();
      expect(member.role).to.equal('owner');
      const domains = await db('mail_domains').where({ product_id: printed.product_id });
      expect(domains.map((d) => [d.name, d.status])).to.deep.equal([['mail.example.com', 'verified']]);
    });

    it('adds a member of each role to a product: prints exactly {product_id, member_token}', async () => {
      const owner = await run(['bootstrap', '--product', uniqueName('team')]);
      const { product_id } = JSON.parse(owner.stdout) as { product_id: string };
      for (const role of ['owner', 'admin', 'member']) {
        const r = await run(['bootstrap', '--product-id', product_id, '--role', role]);
        expect(r.code, r.stderr).to.equal(0);
        const printed = JSON.parse(r.stdout.trim()) as Record<string, string>;
        expect(Object.keys(printed).sort()).to.deep.equal(['member_token', 'product_id']);
        expect(printed.product_id).to.equal(product_id);
        const token = await db('member_tokens')
          .where({ token_hash: sha256Hex(printed.member_token!) })
          .first();
        const member = await db('members').where({ id: token.member_id }).first();
        expect([member.product_id, member.role]).to.deep.equal([product_id, role]);
      }
      const audited = await db('audit_log').where({ product_id, actor_kind: 'cli' });
      expect(audited.map((e) => e.operation)).to.deep.equal(Array(4).fill('organization_members_create'));
      for (const args of [
        ['--product-id', product_id, '--role', 'boss'],
        ['--product-id', '00000000-0000-4000-8000-000000000000', '--role', 'admin'],
        ['--product-id', product_id],
        ['--role', 'admin'],
      ]) {
        const refused = await run(['bootstrap', ...args]);
        expect(refused.code, args.join(' ')).to.equal(2);
        expect(refused.stdout).to.equal('');
      }
      expect(await db('members').where({ product_id })).to.have.length(4);
    });

    it('refuses a missing product name or a malformed domain with exit code 2', async () => {
      const missing = await run(['bootstrap']);
      expect(missing.code).to.equal(2);
      expect(missing.stderr).to.match(/--product NAME is required/);
      const badDomain = await run(['bootstrap', '--product', 'x', '--verified-domain', 'not a domain']);
      expect(badDomain.code).to.equal(2);
      expect(badDomain.stderr).to.match(/not a domain name/);
      expect(badDomain.stdout).to.equal('');
    });

    it('refuses unknown commands and roles', async () => {
      expect((await run(['launch'])).code).to.equal(2);
      const role = await run(['start', 'nonsense']);
      expect(role.code).to.equal(2);
      expect(role.stderr).to.match(/unknown role "nonsense"/);
    });

    it('refuses an edge without one environment, and --env on other roles', async () => {
      for (const args of [
        ['start', 'edge'],
        ['start', 'edge', '--env', 'staging'],
      ]) {
        const r = await run(args);
        expect(r.code, args.join(' ')).to.equal(2);
        expect(r.stderr).to.match(/--env production\|development/);
      }
      const misplaced = await run(['start', 'management', '--env', 'production']);
      expect(misplaced.code).to.equal(2);
      expect(misplaced.stderr).to.match(/--env applies to the edge and gateway roles only/);
    });
  });

  describe('start', () => {
    const prefix = `${uniqueName('start')}.`;
    after(async () => {
      const admin = await connectedAdmin();
      const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
      if (mine.length > 0) await admin.deleteTopics({ topics: mine });
      await admin.disconnect();
    });

    it('brings up every role, prints the demo product, serves it, and reuses it on the next start', async () => {
      const port = await freePort();
      const edgePort = await freePort();
      const devEdgePort = await freePort();
      const env = {
        MANAGEMENT_PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${edgePort}`,
        PUBLIC_DEV_URL: `http://127.0.0.1:${devEdgePort}`,
        GATEWAY_URL: `ws://127.0.0.1:${await freePort()}`,
        GATEWAY_DEV_URL: `ws://127.0.0.1:${await freePort()}`,
        SMTP_SINK_PORT: String(await freePort()),
        REDIS_KEY_PREFIX: `${uniqueName('cli')}:`,
        LATTICE_DATA_DIR: mkdtempSync(join(tmpdir(), 'lattice-data-')),
        KAFKA_TOPIC_PREFIX: prefix,
      };
      const first = await startPlatform(env);
      const banner = first.output();
      const productId = /product_id\s+(\S+)/.exec(banner)?.[1];
      const token = /owner_token\s+(lmt_[0-9a-f]{32})/.exec(banner)?.[1];
      expect(banner).to.include(`http://127.0.0.1:${port}/openapi.json`);
      expect(banner).to.include('Demo product (created now)');
      expect(productId).to.be.a('string');

      const api = `http://127.0.0.1:${port}`;
      const me = await fetch(`${api}/organization/product`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(me.status).to.equal(200);
      expect(((await me.json()) as { id: string }).id).to.equal(productId);
      expect((await fetch(`${api}/openapi.json`)).status).to.equal(200);
      expect((await fetch(`${api}/healthz`)).status).to.equal(200);

      // Both public edges answer: a keyed route without a key is refused by the key check.
      for (const [label, edgeUrl] of [
        ['public edge', env.PUBLIC_URL],
        ['public dev edge', env.PUBLIC_DEV_URL],
      ] as const) {
        expect(banner).to.match(new RegExp(`${label}\\s+${edgeUrl}`));
        const refused = await fetch(`${edgeUrl}/${productId}/realtime/messages`, { method: 'POST' });
        expect(refused.status, label).to.equal(401);
        expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal(
          'public_key_required',
        );
        expect(refused.headers.get('ratelimit-policy')).to.equal('"per-ip";q=100;w=60');
      }

      // A key made through the management API opens the edge of its environment within moments
      // (the change notification, not the 30 s period), and nothing on the other one.
      const created = await fetch(`${api}/organization/public-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'cli test', scope: { kind: 'toolkit', toolkit: 'realtime' } }),
      });
      expect(created.status).to.equal(201);
      const { key, id: prodId } = (await created.json()) as { key: string; id: string };
      const keyed = () =>
        fetch(`${env.PUBLIC_URL}/${productId}/realtime/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
        });
      const deadline = Date.now() + 5_000;
      let passed = await keyed();
      while (passed.status === 401 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        passed = await keyed();
      }
      // Past the key check, the realtime toolkit validates the (missing) body.
      expect(passed.status).to.equal(400);
      const otherEnvironment = await fetch(`${env.PUBLIC_DEV_URL}/${productId}/realtime/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(otherEnvironment.status).to.equal(401);

      // Every role is wired together: a namespace through management, a publish through the
      // edge, the channel actor in the actors role, the history read back through management.
      const ns = await fetch(`${api}/realtime/namespaces/chat`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          presence: false,
          client_events: false,
          history_window_seconds: 600,
          archive_days: 0,
        }),
      });
      expect(ns.status).to.equal(201);
      const published = await fetch(`${env.PUBLIC_URL}/${productId}/realtime/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ channel: 'chat:lobby', data: { text: 'hello' } }),
      });
      expect(published.status).to.equal(202);
      const history = async () =>
        (await (
          await fetch(`${api}/realtime/channels/chat:lobby/history?last_n=10`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).json()) as { data: Array<{ offset: number; data: unknown }> };
      const historyDeadline = Date.now() + 20_000;
      let entries = (await history()).data;
      while (entries.length === 0 && Date.now() < historyDeadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        entries = (await history()).data;
      }
      expect(entries.map((e) => [e.offset, e.data])).to.deep.equal([[1, { text: 'hello' }]]);

      // The local mailbox keeps what is sent to it, where the banner says.
      const mailbox = join(env.LATTICE_DATA_DIR, 'mailbox');
      expect(banner).to.include(`local mailbox    smtp://127.0.0.1:${env.SMTP_SINK_PORT} → ${mailbox}`);
      const sent = await nodemailer
        .createTransport({
          host: '127.0.0.1',
          port: Number(env.SMTP_SINK_PORT),
          secure: false,
          ignoreTLS: true,
        })
        .sendMail({ from: 'ann@demo.lattice.test', to: 'bob@example.com', subject: 'cli', text: 'kept' });
      const kept = /queued as (\S+)/.exec(sent.response)?.[1];
      expect(await readFile(join(mailbox, `${kept}.eml`), 'utf8')).to.include('Subject: cli');

      // A browser's way in: a delegated token from the edge names the gateway, which replays the
      // channel from a cursor and pushes what is published next.
      expect(banner).to.match(new RegExp(`gateway\\s+${env.GATEWAY_URL}`));
      expect(banner).to.match(new RegExp(`dev gateway\\s+${env.GATEWAY_DEV_URL}`));
      const issued = await fetch(`${env.PUBLIC_URL}/${productId}/realtime/tokens/issue`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ subject: 'cli', channels: [{ name: 'chat:lobby', ops: ['subscribe'] }] }),
      });
      expect(issued.status).to.equal(200);
      const { token: jwt, gatewayUrl } = (await issued.json()) as { token: string; gatewayUrl: string };
      expect(gatewayUrl).to.equal(env.GATEWAY_URL);
      const browser = await TestSocket.open(gatewayUrl);
      browser.send({ id: 1, action: 'auth', token: jwt });
      expect((await browser.waitFor((f) => f.id === 1)).result).to.include({ subject: 'ext:cli' });
      browser.send({ id: 2, action: 'subscribe', channel: 'chat:lobby', recover: { offset: 0, epoch: '' } });
      const subscribed = (await browser.waitFor((f) => f.id === 2)).result as {
        messages: Array<{ data: unknown }>;
      };
      expect(subscribed.messages.map((m) => m.data)).to.deep.equal([{ text: 'hello' }]);
      await fetch(`${env.PUBLIC_URL}/${productId}/realtime/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ channel: 'chat:lobby', data: { text: 'again' } }),
      });
      const pushed = await browser.waitFor((f) => f.push === 'message');
      expect([pushed.offset, pushed.data]).to.deep.equal([2, { text: 'again' }]);
      browser.close();

      // A development key, and revocations: each reaches its own edge by its change notification,
      // within moments rather than the 30 s period (the revoked key answers 403 for one window).
      const manage = (method: string, path: string, body?: unknown) =>
        fetch(`${api}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const untilStatus = async (request: () => Promise<Response>, status: number) => {
        const until = Date.now() + 5_000;
        let answer = await request();
        while (answer.status !== status && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          answer = await request();
        }
        return answer;
      };
      const devCreated = await manage('POST', '/organization/public-keys', {
        name: 'cli dev',
        scope: { kind: 'toolkit', toolkit: 'realtime' },
        environment: 'development',
      });
      expect(devCreated.status).to.equal(201);
      const devKey = (await devCreated.json()) as { id: string; key: string };
      const publishWith = (edgeUrl: string, secret: string) => () =>
        fetch(`${edgeUrl}/${productId}/realtime/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}` },
        });
      expect((await untilStatus(publishWith(env.PUBLIC_DEV_URL, devKey.key), 400)).status).to.equal(400);
      for (const [edgeUrl, id, secret] of [
        [env.PUBLIC_URL, prodId, key],
        [env.PUBLIC_DEV_URL, devKey.id, devKey.key],
      ] as const) {
        expect((await manage('POST', `/organization/public-keys/${id}/revoke`)).status).to.equal(200);
        const revoked = await untilStatus(publishWith(edgeUrl, secret), 403);
        expect(revoked.status, edgeUrl).to.equal(403);
        expect(((await revoked.json()) as { error: { code: string } }).error.code).to.equal(
          'public_key_scope',
        );
      }

      const admin = await connectedAdmin();
      const topics = await admin.listTopics();
      await admin.disconnect();
      for (const t of Object.values(TOPIC_CATALOG)) expect(topics).to.include(topicName(prefix, t.name));

      expect(await stopPlatform(first.child)).to.equal(0);
      expect(first.output()).to.include('stopped');

      const second = await startPlatform(env);
      expect(second.output()).to.include(`product_id       ${productId}`);
      expect(second.output()).to.not.include('created now');
      expect(await stopPlatform(second.child)).to.equal(0);
    });

    it('runs one edge alone with `start edge --env development`, its metrics on a port of their own', async () => {
      const edgePort = await freePort();
      const metricsPort = await freePort();
      const edgeUrl = `http://127.0.0.1:${edgePort}`;
      const alone = await startPlatform(
        {
          PUBLIC_DEV_URL: edgeUrl,
          EDGE_DEV_METRICS_PORT: String(metricsPort),
          REDIS_KEY_PREFIX: `${uniqueName('cli')}:`,
        },
        ['edge', '--env', 'development'],
        'edge-development-metrics role running',
      );
      expect(alone.output()).to.include(`edge-development role running at ${edgeUrl}`);
      const refused = await fetch(`${edgeUrl}/00000000-0000-4000-8000-000000000000/mail/emails`, {
        method: 'POST',
      });
      expect(refused.status).to.equal(401);
      expect((await fetch(`${edgeUrl}/healthz`)).status).to.equal(200);
      expect((await fetch(`${edgeUrl}/metrics`)).status).to.equal(404);
      const metricsUrl = `http://127.0.0.1:${metricsPort}`;
      expect((await fetch(`${metricsUrl}/healthz`)).status).to.equal(200);
      const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
      expect(metrics).to.match(/^lattice_edge_key_snapshot_keys\{environment="development"\} \d+$/m);
      expect(metrics).to.match(
        /^lattice_edge_requests_total\{environment="development",outcome="public_key_required"\} 1$/m,
      );
      // The realtime toolkit's publish quota is counted on the same registry (principle 5).
      expect(metrics).to.match(/^lattice_realtime_publish_quota_fallbacks_total 0$/m);
      expect(await stopPlatform(alone.child)).to.equal(0);
    });

    it('runs the actors role alone with its own health and metrics', async () => {
      const actorsPort = await freePort();
      const alone = await startPlatform(
        {
          ACTORS_PORT: String(actorsPort),
          KAFKA_TOPIC_PREFIX: prefix,
          REDIS_KEY_PREFIX: `${uniqueName('cli')}:`,
        },
        ['actors'],
        'actors role running',
      );
      const health = await fetch(`http://127.0.0.1:${actorsPort}/healthz`);
      expect(health.status).to.equal(200);
      const metrics = await (await fetch(`http://127.0.0.1:${actorsPort}/metrics`)).text();
      expect(metrics).to.match(
        /^lattice_actor_host_up\{group="[^"]*lattice-actors\.channel",topic="[^"]*realtime\.channel-commands"\} 1$/m,
      );
      expect(await stopPlatform(alone.child)).to.equal(0);
    });
  });
});
