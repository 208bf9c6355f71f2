// The SDK (its source) against a real platform: the management API and the production edge with
// real PostgreSQL, Redis and Kafka (test/integration/mail/mail-platform.ts, accepting side only),
// one product with a verified sending domain. A small proxy in front of the management API loses
// the answer to a send once, as a network or a load balancer might, to show that the retry with
// the same Idempotency-Key makes exactly one email.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { type MailPlatform, startMailPlatform } from '../../../test/integration/mail/mail-platform.ts';
import { LatticeError } from './errors.ts';
import { CATALOG_VERSION } from './generated/management-operations.ts';
import { Lattice } from './lattice.ts';
import { LatticeEdge } from './lattice-edge.ts';

async function rejection(promise: Promise<unknown>): Promise<LatticeError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(LatticeError);
    return err as LatticeError;
  }
  throw new Error('expected a LatticeError');
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface LossyProxy {
  url: string;
  /** The Idempotency-Key of each send that reached the API through the proxy. */
  sendKeys: Array<string | undefined>;
  /** What the API answered to the send whose answer the proxy replaced with a 503. */
  lostAnswer: { status: number; text: string } | undefined;
  close(): Promise<void>;
}

/** Forwards everything to `upstream`; the first send reaches the API, but its caller gets a 503. */
async function startLossyProxy(upstream: string): Promise<LossyProxy> {
  const proxy: Omit<LossyProxy, 'url' | 'close'> = { sendKeys: [], lostAnswer: undefined };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (name !== 'host' && name !== 'content-length' && typeof value === 'string')
          headers.set(name, value);
      }
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method!,
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const text = await answer.text();
      const isSend = req.method === 'POST' && req.url === '/mail/emails';
      if (isSend) proxy.sendKeys.push(req.headers['idempotency-key'] as string | undefined);
      if (isSend && proxy.lostAnswer === undefined) {
        proxy.lostAnswer = { status: answer.status, text };
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end(
          JSON.stringify({ error: { code: 'send_unavailable', message: 'lost on the way', step: 'queue' } }),
        );
        return;
      }
      const out: Record<string, string> = {};
      for (const name of ['content-type', 'x-request-id', 'retry-after']) {
        const value = answer.headers.get(name);
        if (value) out[name] = value;
      }
      res.writeHead(answer.status, out);
      res.end(text);
    })().catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as LossyProxy;
}

describe('@lattice/sdk against a real management API and edge', function () {
  this.timeout(120_000);
  let p: MailPlatform;
  let lattice: Lattice;

  before(async () => {
    p = await startMailPlatform({
      label: 'sdk',
      actors: false,
      config: { perIpRequestsPerMinute: 1_000_000 },
    });
    lattice = new Lattice({ apiKey: p.product.ownerToken, baseUrl: p.management.url });
  });
  after(async () => {
    await p?.close();
  });

  it('talks to the catalog it was generated from (X-Catalog-Version)', async () => {
    const res = await fetch(`${p.management.url}/openapi.json`);
    expect(res.headers.get('x-catalog-version')).to.equal(CATALOG_VERSION);
  });

  it('creates public keys, and lists every key by iterating over several pages', async () => {
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        await lattice.organization.publicKeys.create({
          name: `sdk key ${i}`,
          scope: { kind: 'toolkit', toolkit: 'realtime' },
        }),
      );
    }
    expect(created[0]!.key).to.match(/^lpk_/);
    expect(created[0]!.name).to.equal('sdk key 0');

    const first = await lattice.organization.publicKeys.list({ limit: 2 });
    expect(first.data).to.have.length(2);
    expect(first.next_cursor).to.be.a('string');

    let pages = 0;
    const counting = new Lattice({
      apiKey: p.product.ownerToken,
      baseUrl: p.management.url,
      fetch: (input, init) => {
        pages++;
        return fetch(input, init);
      },
    });
    const ids: string[] = [];
    for await (const key of counting.organization.publicKeys.list({ limit: 2 })) ids.push(key.id);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids).to.include.members(created.map((k) => k.id));
    // A full last page may or may not say so: one more, empty page then ends the list.
    expect(pages).to.be.within(Math.ceil(ids.length / 2), Math.ceil(ids.length / 2) + 1);
    expect(pages).to.be.at.least(3);
  });

  it('surfaces a validation error as a LatticeError with its fields and request id', async () => {
    const err = await rejection(
      lattice.organization.publicKeys.create({ name: '', scope: { kind: 'toolkit', toolkit: 'realtime' } }),
    );
    expect(err).to.include({ status: 400, code: 'validation_error', step: 'validation' });
    expect(err.fields.map((f) => f.path)).to.include('body.name');
    expect(err.requestId).to.be.a('string').and.not.equal('');
    const missing = await rejection(lattice.mail.email.get({ id: '00000000-0000-4000-8000-000000000000' }));
    expect(missing).to.include({ status: 404 });
  });

  it('a send whose answer is lost (503) is retried with the same Idempotency-Key: exactly one email', async () => {
    const proxy = await startLossyProxy(p.management.url);
    try {
      const via = new Lattice({ apiKey: p.product.ownerToken, baseUrl: proxy.url, baseDelayMs: 10 });
      const subject = `sdk once ${Date.now()}`;
      const answer = await via.mail.email.send({
        from: `news@${p.product.domain}`,
        to: 'bob@example.net',
        subject,
        text: 'Sent once, whatever the network did.',
      });
      expect(proxy.lostAnswer?.status).to.equal(202);
      expect(proxy.sendKeys).to.have.length(2);
      expect(proxy.sendKeys[0]).to.match(/^[0-9a-f-]{36}$/);
      expect(proxy.sendKeys[1]).to.equal(proxy.sendKeys[0]);
      expect(answer.id).to.equal((JSON.parse(proxy.lostAnswer!.text) as { id: string }).id);
      const rows = await p.db('mail_emails').where({ product_id: p.product.productId, subject }).select('id');
      expect(rows.map((r: { id: string }) => r.id)).to.deep.equal([answer.id]);
    } finally {
      await proxy.close();
    }
  });

  it('publishes with a caller-given Idempotency-Key: the repeat answers the first publish', async () => {
    const namespace = `sdk${Date.now()}`;
    await lattice.realtime.namespace.put({ name: namespace, history_window_seconds: 60 });
    const args = { channel: `${namespace}:room-1`, data: { text: 'hi' }, 'Idempotency-Key': 'sdk-publish-1' };
    const first = await lattice.realtime.message.publish(args);
    expect(first).to.have.property('id').that.is.a('string');
    expect(await lattice.realtime.message.publish(args)).to.deep.equal(first);
    const other = await lattice.realtime.message.publish({ ...args, 'Idempotency-Key': undefined });
    expect(other)
      .to.have.property('id')
      .that.does.not.equal((first as { id: string }).id);
  });

  it('LatticeEdge sends and reads an email with a public key', async () => {
    const publicKey = await p.publicKey({ kind: 'toolkit', toolkit: 'mail' });
    const edge = new LatticeEdge({ publicKey, productId: p.product.productId, baseUrl: p.edge.url });
    const sent = await edge.mail.email.send({
      from: `news@${p.product.domain}`,
      to: 'carol@example.net',
      subject: 'from the edge',
      text: 'x',
    });
    const read = await edge.mail.email.get({ id: sent.id });
    expect(read).to.include({ id: sent.id, subject: 'from the edge' });
    const err = await rejection(
      edge.mail.email.send({
        from: 'nobody@unverified.example',
        to: 'x@example.net',
        subject: 's',
        text: 't',
      }),
    );
    expect(err).to.include({ status: 422, code: 'domain_not_verified' });
  });
});
