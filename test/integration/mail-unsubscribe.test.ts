// One-click unsubscribe (RFC 8058) through a real public edge and the real PostgreSQL
// suppression list (mail-tracking/fixture.ts): the confirmation page changes nothing, the POST
// suppresses once whatever its encoding, bad bodies are 4xx, and an unreachable database is a
// 503 to retry.
import { createPostgresSuppressionStore } from '@lattice/mail';
import { createDb } from '@lattice/store';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { errorOf } from './edge/harness.ts';
import { FORM, ONE_CLICK, startTrackingFixture, type TrackingFixture } from './mail-tracking/fixture.ts';

describe('mail one-click unsubscribe (real edge, PostgreSQL)', () => {
  let fx: TrackingFixture;

  before(async () => {
    fx = await startTrackingFixture('mail-unsub');
  });
  after(() => fx?.close());

  const listed = async () => (await fx.suppressionsOf(fx.productId)).map((r) => r.address);

  it('GET: a confirmation page posting the one-click body, and nothing suppressed', async () => {
    const email = fx.newEmail('zoe.q@example.org');
    const res = await fetch(fx.links.unsubscribeUrl(email));
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('no-store, private');
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(res.headers.get('content-security-policy'))
      .to.include("default-src 'none'")
      .and.include("form-action 'self'");
    const page = await res.text();
    expect(page).to.include('z***@example.org').and.not.include('zoe.q@');
    expect(page).to.include(
      '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">',
    );
    expect(await listed()).to.not.include(email.recipient);
  });

  it('POST one-click (RFC 8058 body): suppressed with reason unsubscribe; twice is still one entry', async () => {
    const email = fx.newEmail();
    const url = fx.links.unsubscribeUrl(email);
    const first = await fetch(url, { method: 'POST', headers: FORM, body: ONE_CLICK });
    expect(first.status).to.equal(200);
    expect(first.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(await first.text()).to.include('You are unsubscribed');
    const rows = (await fx.suppressionsOf(fx.productId)).filter((r) => r.address === email.recipient);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.deep.include({
      address: email.recipient,
      reason: 'unsubscribe',
      email_id: email.emailId,
    });
    const again = await fetch(url, { method: 'POST', headers: FORM, body: ONE_CLICK });
    expect(again.status).to.equal(200);
    const after = (await fx.suppressionsOf(fx.productId)).filter((r) => r.address === email.recipient);
    expect(after).to.deep.equal(rows);
  });

  it('POST as multipart/form-data (the RFC’s preferred form) and with an empty body unsubscribe too', async () => {
    const a = fx.newEmail();
    const form = new FormData();
    form.append('List-Unsubscribe', 'One-Click');
    expect((await fetch(fx.links.unsubscribeUrl(a), { method: 'POST', body: form })).status).to.equal(200);
    const b = fx.newEmail();
    expect((await fetch(fx.links.unsubscribeUrl(b), { method: 'POST' })).status).to.equal(200);
    expect(await listed())
      .to.include(a.recipient)
      .and.include(b.recipient);
  });

  it('POST with a JSON, oversized, wrong or malformed body: 4xx and nothing suppressed', async () => {
    const email = fx.newEmail();
    const url = fx.links.unsubscribeUrl(email);
    const cases: Array<[RequestInit, number, string]> = [
      [
        { headers: { 'content-type': 'application/json' }, body: '{"List-Unsubscribe":"One-Click"}' },
        415,
        'unsupported_media_type',
      ],
      [{ headers: { 'content-type': 'text/plain' }, body: ONE_CLICK }, 415, 'unsupported_media_type'],
      [{ headers: FORM, body: `${ONE_CLICK}&pad=${'x'.repeat(65_536)}` }, 413, 'payload_too_large'],
      [{ headers: FORM, body: 'List-Unsubscribe=Yes' }, 400, 'validation_error'],
      [
        { headers: { 'content-type': 'multipart/form-data; boundary=zz' }, body: '--zz\r\nbroken' },
        400,
        'invalid_form',
      ],
    ];
    for (const [init, status, code] of cases) {
      const res = await fetch(url, { method: 'POST', ...init });
      const answer = { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
      expect(answer.status, code).to.equal(status);
      expect(errorOf(answer).code).to.equal(code);
    }
    expect(await listed()).to.not.include(email.recipient);
  });

  it('PostgreSQL unreachable: the POST answers 503 unsubscribe_unavailable with Retry-After, never a 500', async () => {
    const unreachable = createDb({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', logger: fx.logger });
    try {
      const links = await fx.startEdgeWith({
        events: fx.events,
        suppressions: createPostgresSuppressionStore(unreachable),
        registry: new Registry(),
      });
      const email = fx.newEmail();
      const res = await fetch(links.unsubscribeUrl(email), {
        method: 'POST',
        headers: FORM,
        body: ONE_CLICK,
      });
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('5');
      const answer = { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
      expect(errorOf(answer)).to.include({ code: 'unsubscribe_unavailable', step: 'tracking' });
      // The confirmation page reads nothing, so it is still served.
      expect((await fetch(links.unsubscribeUrl(email))).status).to.equal(200);
      expect(await listed()).to.not.include(email.recipient);
    } finally {
      await unreachable.destroy();
    }
  });
});
