// Mail webhooks end to end against a real HTTPS receiver (a certificate from the suite's own CA,
// trusted through NODE_EXTRA_CA_CERTS): an email sent through the API reaches the endpoint as a
// signed `email.delivered` that the `standardwebhooks` and `svix` libraries verify on the raw
// body; every row of the spec's delivery state table; order under retries; Retry-After, 410,
// auto-disable, operator retry, recover and test sends.
import { expect } from 'chai';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import {
  type HttpsReceiver,
  type ReceivedRequest,
  type ReceiverHandler,
  startHttpsReceiver,
} from '../support/https-receiver.ts';
import { startWebhookPlatform, type WebhookPlatform } from './webhooks/webhook-platform.ts';

const header = (r: ReceivedRequest, name: string) => String(r.headers[name]);
const idOf = (r: ReceivedRequest) => header(r, 'webhook-id');
const bodyOf = (r: ReceivedRequest) => JSON.parse(r.body.toString('utf8'));

describe('mail webhooks: delivery', function () {
  this.timeout(120_000);
  let p: WebhookPlatform;
  const receivers: HttpsReceiver[] = [];

  before(async () => {
    // The last delay is the cap of a Retry-After, so it is long enough to see one lengthen a wait.
    p = await startWebhookPlatform({
      label: 'webhooks',
      webhooks: { retryDelaysMs: [150, 150, 150, 1_200] },
    });
  });
  after(async () => {
    for (const r of receivers) await r.close();
    await p?.close();
  });

  async function receiver(respond?: ReceiverHandler) {
    const r = await startHttpsReceiver(respond ? { handler: respond } : {});
    receivers.push(r);
    return r;
  }

  it('an email sent through the API reaches the endpoint as a signed email.delivered both libraries verify', async () => {
    const r = await receiver();
    const ep = await p.endpoint(r.url('/hooks/lattice'), ['email.delivered', 'email.bounced']);
    const sent = await p.call<{ id: string }>('POST', '/mail/emails', p.product.ownerToken, {
      from: `news@${p.product.domain}`,
      to: 'reader@example.net',
      subject: 'Webhook me',
      html: '<p>Hello</p>',
    });
    expect(sent.status, sent.text).to.equal(202);
    const [req] = await r.waitFor(1, 30_000);
    expect(req!.method).to.equal('POST');
    expect(req!.path).to.equal('/hooks/lattice');
    expect(header(req!, 'user-agent')).to.equal('lattice-mail-webhooks/1');
    expect(header(req!, 'content-type')).to.equal('application/json');
    expect(header(req!, 'webhook-signature')).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
    const headers = {
      'webhook-id': idOf(req!),
      'webhook-timestamp': header(req!, 'webhook-timestamp'),
      'webhook-signature': header(req!, 'webhook-signature'),
    };
    // Both libraries verify on the raw bytes, as a receiver must (docs/webhooks.md).
    // (svix's verify returns nothing and throws on a mismatch; standardwebhooks returns the body.)
    const viaStandard = new StandardWebhook(ep.secret).verify(req!.body.toString('utf8'), headers);
    new SvixWebhook(ep.secret).verify(req!.body.toString('utf8'), headers);
    expect(viaStandard).to.deep.equal(bodyOf(req!));
    // A body changed by one byte, or another endpoint's secret, does not verify.
    expect(() => new StandardWebhook(ep.secret).verify(`${req!.body.toString('utf8')} `, headers)).to.throw();
    const other = await p.endpoint(r.url('/other'), ['email.opened']);
    expect(() => new SvixWebhook(other.secret).verify(req!.body.toString('utf8'), headers)).to.throw();

    const body = bodyOf(req!);
    expect(body).to.deep.include({ type: 'email.delivered' });
    expect(body.data).to.include({
      emailId: sent.json.id,
      type: 'delivered',
      recipient: 'reader@example.net',
      bounceKind: null,
    });
    expect(body.data.occurredAt).to.equal(body.timestamp);
    expect(body.data.providerMessageId).to.be.a('string').and.not.equal('');
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).to.be.below(30);

    const [log] = await p.waitForDeliveries(ep.id, (d) => d[0]?.status === 'succeeded');
    expect(log).to.include({
      id: idOf(req!),
      event_id: body.data.eventId,
      event_type: 'email.delivered',
      status: 'succeeded',
      attempts: 1,
      response_status: 204,
      last_error: null,
      next_attempt_at: null,
    });
    expect(log!.last_attempt_at).to.be.a('string');
    expect(r.requests).to.have.length(1);
  });

  it('delivers each event to every subscribed enabled endpoint and to no other', async () => {
    const r = await receiver();
    const a = await p.endpoint(r.url('/a'), ['email.bounced']);
    const b = await p.endpoint(r.url('/b'), ['email.bounced', 'email.delivered']);
    const c = await p.endpoint(r.url('/c'), ['email.delivered']);
    const off = await p.endpoint(r.url('/off'), ['email.bounced'], { enabled: false });
    const e = await p.publish('bounced');
    await r.waitFor(2);
    const byPath = new Map(r.requests.map((q) => [q.path, q]));
    expect([...byPath.keys()].sort()).to.deep.equal(['/a', '/b']);
    // Each endpoint's own delivery id; the same event in both bodies.
    expect(idOf(byPath.get('/a')!)).to.not.equal(idOf(byPath.get('/b')!));
    expect(bodyOf(byPath.get('/a')!).data).to.include({ eventId: e.event_id, bounceKind: 'hard' });
    await p.waitForDeliveries(b.id, (d) => d.length === 1 && d[0]!.status === 'succeeded');
    expect(await p.deliveries(c.id)).to.deep.equal([]);
    expect(await p.deliveries(off.id)).to.deep.equal([]);
    expect((await p.deliveries(a.id))[0]!.event_id).to.equal(e.event_id);
  });

  it('pending → pending → succeeded: a failure with attempts left is retried with the same webhook-id, re-signed', async () => {
    let calls = 0;
    const r = await receiver(() => (++calls <= 2 ? { status: 500 } : { status: 200 }));
    const ep = await p.endpoint(r.url('/flaky'));
    await p.publish('delivered');
    await r.waitFor(1);
    const first = await p.waitForDeliveries(ep.id, (d) => d[0]?.attempts === 1);
    expect(first[0]).to.include({ status: 'pending', response_status: 500, last_error: 'HTTP 500' });
    expect(first[0]!.next_attempt_at).to.be.a('string');
    const reqs = await r.waitFor(3);
    const [done] = await p.waitForDeliveries(ep.id, (d) => d[0]?.status === 'succeeded');
    expect(done).to.include({ attempts: 3, response_status: 200, last_error: null });
    expect(new Set(reqs.map(idOf))).to.deep.equal(new Set([done!.id]));
    // Same id and body; each attempt signed when it is made (its own timestamp), and every one verifies.
    expect(new Set(reqs.map((q) => q.body.toString('hex'))).size).to.equal(1);
    for (const q of reqs) {
      expect(Number(header(q, 'webhook-timestamp'))).to.be.closeTo(q.receivedAtMs / 1000, 1.5);
    }
    for (const q of reqs) {
      new StandardWebhook(ep.secret).verify(q.body.toString('utf8'), {
        'webhook-id': idOf(q),
        'webhook-timestamp': header(q, 'webhook-timestamp'),
        'webhook-signature': header(q, 'webhook-signature'),
      });
    }
    // The delays count from the end of the failed attempt (150 ms here) and only lengthen.
    expect(reqs[1]!.receivedAtMs - reqs[0]!.receivedAtMs).to.be.at.least(150);
  });

  it('pending → failed after the fifth attempt; a receiver rejecting signatures shows as 401', async () => {
    const r = await receiver(() => ({ status: 401 }));
    const ep = await p.endpoint(r.url('/rejects'));
    await p.publish('delivered');
    const [d] = await p.waitForDeliveries(ep.id, (x) => x[0]?.status === 'failed');
    expect(d).to.include({
      status: 'failed',
      attempts: 5,
      response_status: 401,
      last_error: 'HTTP 401',
      next_attempt_at: null,
    });
    expect(r.requests).to.have.length(5);
    // Never tried again by itself.
    await new Promise((res) => setTimeout(res, 600));
    expect(r.requests).to.have.length(5);
  });

  it('an endpoint that never answers shows no response status', async () => {
    const r = await receiver(() => ({ status: 200, delayMs: 60_000 }));
    const ep = await p.endpoint(r.url('/silent'));
    await p.publish('delivered');
    const [d] = await p.waitForDeliveries(ep.id, (x) => x[0]?.attempts === 1, 10_000);
    expect(d).to.include({ status: 'pending', response_status: null });
    expect(d!.last_error).to.match(/no answer within 2000 ms/);
  });

  it('holds later deliveries back while the oldest is retried: the receiver sees them in event order', async () => {
    let firstCalls = 0;
    const r = await receiver((q) => {
      const type = bodyOf(q).type;
      if (type === 'email.delivered' && ++firstCalls <= 2) return { status: 503 };
      return { status: 204 };
    });
    const ep = await p.endpoint(r.url('/ordered'), ['email.delivered', 'email.opened', 'email.clicked']);
    const emailId = '6f1d1d3e-59a1-4a0e-9d0c-8f6a2a4c0b11';
    await p.publish('delivered', { email_id: emailId });
    await p.publish('opened', { email_id: emailId });
    await p.publish('clicked', { email_id: emailId });
    const reqs = await r.waitFor(5);
    expect(reqs.map((q) => bodyOf(q).type)).to.deep.equal([
      'email.delivered',
      'email.delivered',
      'email.delivered',
      'email.opened',
      'email.clicked',
    ]);
    const log = await p.waitForDeliveries(
      ep.id,
      (d) => d.length === 3 && d.every((x) => x.status === 'succeeded'),
    );
    // Newest first.
    expect(log.map((d) => d.event_type)).to.deep.equal(['email.clicked', 'email.opened', 'email.delivered']);
    expect(bodyOf(reqs[4]!).data.link).to.equal('https://shop.example/sale');
  });

  it('a longer Retry-After on a 429 lengthens the next delay', async () => {
    let calls = 0;
    const r = await receiver(() =>
      ++calls === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 },
    );
    const ep = await p.endpoint(r.url('/busy'));
    await p.publish('delivered');
    const reqs = await r.waitFor(2);
    expect(reqs[1]!.receivedAtMs - reqs[0]!.receivedAtMs).to.be.at.least(1_000);
    // A second apart: the retry carries a new timestamp and so a new signature, and both verify.
    expect(header(reqs[1]!, 'webhook-timestamp')).to.not.equal(header(reqs[0]!, 'webhook-timestamp'));
    expect(header(reqs[1]!, 'webhook-signature')).to.not.equal(header(reqs[0]!, 'webhook-signature'));
    for (const q of reqs.slice(0, 2)) {
      new StandardWebhook(ep.secret).verify(q.body.toString('utf8'), {
        'webhook-id': idOf(q),
        'webhook-timestamp': header(q, 'webhook-timestamp'),
        'webhook-signature': header(q, 'webhook-signature'),
      });
    }
    const [d] = await p.waitForDeliveries(ep.id, (x) => x[0]?.status === 'succeeded');
    expect(d!.attempts).to.equal(2);
  });

  it('pending → failed without a request when the endpoint is disabled since the event was recorded', async () => {
    // The first delivery keeps failing, so the next two wait behind it; then the endpoint is disabled.
    const r = await receiver(() => ({ status: 500 }));
    const ep = await p.endpoint(r.url('/disabled-later'));
    await p.publish('delivered');
    await p.publish('delivered');
    await p.publish('delivered');
    await r.waitFor(1);
    const off = await p.call('PATCH', `/mail/webhooks/${ep.id}`, p.product.ownerToken, { enabled: false });
    expect(off.status, off.text).to.equal(200);
    const log = await p.waitForDeliveries(
      ep.id,
      (d) => d.length === 3 && d.every((x) => x.status === 'failed'),
    );
    // The two held back were never sent; the one in retry failed at its next due time, unsent.
    expect(log.slice(0, 2).map((d) => [d.attempts, d.response_status, d.last_error])).to.deep.equal([
      [0, null, 'endpoint disabled'],
      [0, null, 'endpoint disabled'],
    ]);
    expect(log[2]).to.include({ status: 'failed', last_error: 'endpoint disabled' });
    expect(log[2]!.attempts).to.be.within(1, 4);
    // Every request the receiver got was an attempt of the oldest delivery, counted.
    expect(r.requests.length).to.equal(log[2]!.attempts);
    expect(new Set(r.requests.map(idOf))).to.deep.equal(new Set([log[2]!.id]));
  });

  it('a 410 Gone disables the endpoint; re-enabling re-queues nothing', async () => {
    const r = await receiver(() => ({ status: 410 }));
    const ep = await p.endpoint(r.url('/gone'));
    await p.publish('delivered');
    const [d] = await p.waitForDeliveries(ep.id, (x) => x[0]?.status === 'failed');
    expect(d).to.include({ attempts: 1, response_status: 410 });
    const got = await p.call<{ enabled: boolean }>('GET', `/mail/webhooks/${ep.id}`, p.product.ownerToken);
    expect(got.json.enabled).to.equal(false);
    await p.call('PATCH', `/mail/webhooks/${ep.id}`, p.product.ownerToken, { enabled: true });
    await new Promise((res) => setTimeout(res, 500));
    expect(r.requests).to.have.length(1);
  });

  it('auto-disables after 3 deliveries failed for good in a row; a success in between resets the count', async () => {
    let succeedNext = false;
    const r = await receiver(() => (succeedNext ? { status: 204 } : { status: 500 }));
    const ep = await p.endpoint(r.url('/down'));
    const enabled = async () =>
      (await p.call<{ enabled: boolean }>('GET', `/mail/webhooks/${ep.id}`, p.product.ownerToken)).json
        .enabled;
    const failOne = async (n: number) => {
      await p.publish('delivered');
      await p.waitForDeliveries(ep.id, (d) => d.filter((x) => x.status === 'failed').length === n);
    };
    await failOne(1);
    await failOne(2);
    succeedNext = true;
    await p.publish('delivered');
    await p.waitForDeliveries(ep.id, (d) => d.some((x) => x.status === 'succeeded'));
    succeedNext = false;
    await failOne(3);
    await failOne(4);
    expect(await enabled()).to.equal(true);
    await failOne(5);
    expect(await enabled()).to.equal(false);
  });

  it('retry and recover put failed deliveries back with 5 new attempts and the same webhook-id; test sends a signed event', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? { status: 204 } : { status: 500 }));
    const ep = await p.endpoint(r.url('/recovering'), ['email.delivered', 'email.complained']);
    const since = new Date(Date.now() - 1_000).toISOString();
    await p.publish('delivered');
    await p.publish('complained');
    const failed = await p.waitForDeliveries(
      ep.id,
      (d) => d.length === 2 && d.every((x) => x.status === 'failed'),
    );
    healthy = true;
    const retried = await p.call<{ status: string; attempts: number }>(
      'POST',
      `/mail/webhooks/${ep.id}/deliveries/${failed[1]!.id}/retry`,
      p.product.ownerToken,
    );
    expect(retried.status, retried.text).to.equal(202);
    await p.waitForDeliveries(ep.id, (d) => d.find((x) => x.id === failed[1]!.id)?.status === 'succeeded');
    const recovered = await p.call<{ recovered: number }>(
      'POST',
      `/mail/webhooks/${ep.id}/recover`,
      p.product.ownerToken,
      {
        since,
      },
    );
    expect(recovered.status, recovered.text).to.equal(202);
    expect(recovered.json.recovered).to.equal(1);
    const after = await p.waitForDeliveries(ep.id, (d) => d.every((x) => x.status === 'succeeded'));
    expect(after.map((d) => d.attempts)).to.deep.equal([6, 6]);
    const lastTwo = r.requests.slice(-2).map(idOf).sort();
    expect(lastTwo).to.deep.equal(failed.map((d) => d.id).sort());

    const tested = await p.call<{ id: string }>(
      'POST',
      `/mail/webhooks/${ep.id}/test`,
      p.product.ownerToken,
      {
        event_type: 'email.complained',
      },
    );
    expect(tested.status, tested.text).to.equal(202);
    const [, , , , , , , , , , , , testReq] = await r.waitFor(13);
    expect(idOf(testReq!)).to.equal(tested.json.id);
    // svix's own header names work too (its verify throws on a mismatch).
    new SvixWebhook(ep.secret).verify(testReq!.body.toString('utf8'), {
      'svix-id': idOf(testReq!),
      'svix-timestamp': header(testReq!, 'webhook-timestamp'),
      'svix-signature': header(testReq!, 'webhook-signature'),
    });
    const verified = bodyOf(testReq!);
    expect(verified.type).to.equal('email.complained');
    expect(verified.data.emailId).to.equal(null);
  });
});
