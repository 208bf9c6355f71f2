// Accepting sends, on both surfaces (public edge and management API), before anything is handed
// over: both sides of the 1 MiB body cap and of the per-product send rate (windows driven by a
// manual clock, so "the same second" is exact), Idempotency-Keys shared by the surfaces, the
// verified-domain rule with mail-key locks (dropped for an imported key on the edge), every key
// kind, and bad input answered 4xx with the error body. Nothing here needs the actors role: a
// record on mail.outbound is checked where it matters by reading the topic.
import { ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import { type Answer, type MailPlatform, type MailProduct, startMailPlatform } from './mail/mail-platform.ts';

const CAP = 1_048_576;

describe('mail accept: caps, send rate, Idempotency-Keys, domains and keys (edge and management)', function () {
  this.timeout(60_000);
  // Mid-second, far from a window's edge; the tests move it on by whole seconds.
  const clock = new ManualClock(Date.UTC(2026, 10, 24, 12, 0, 0, 500));
  let p: MailPlatform;
  let edgeKey: string;

  before(async () => {
    p = await startMailPlatform({
      label: 'mail-accept',
      actors: false,
      clock,
      config: { perIpRequestsPerMinute: 1_000_000 },
    });
    edgeKey = await p.publicKey({ kind: 'toolkit', toolkit: 'mail' });
  });
  after(async () => {
    await p?.close();
  });
  /** A fresh send-rate window for each test. */
  beforeEach(() => clock.advance(1000));

  const from = (product: MailProduct = p.product) => `news@${product.domain}`;
  const body = (extra: Record<string, unknown> = {}) => ({
    from: from(),
    to: 'bob@example.net',
    subject: 'Hi',
    html: '<p>x</p>',
    ...extra,
  });
  const viaManagement = (b: unknown, headers: Record<string, string> = {}, token = p.product.ownerToken) =>
    p.call<{ id: string; error?: { code: string } }>('POST', '/mail/emails', token, b, headers);
  const viaEdge = (b: unknown, headers: Record<string, string> = {}, key = edgeKey) =>
    p.edgeCall<{ id: string; error?: { code: string } }>('POST', '/emails', key, b, headers);

  function errorOf(a: Answer<unknown>): { code: string; step?: string; fields?: Array<{ path: string }> } {
    return (a.json as { error: { code: string; step?: string; fields?: Array<{ path: string }> } }).error;
  }

  /** A body of exactly `bytes` bytes of JSON (the html padded). */
  function bodyOfSize(bytes: number): string {
    const empty = JSON.stringify(body({ html: '' }));
    return JSON.stringify(body({ html: 'x'.repeat(bytes - empty.length) }));
  }

  describe('the 1 MiB body cap', () => {
    for (const [surface, post] of [
      ['management', (b: string) => viaManagement(b)],
      ['edge', (b: string) => viaEdge(b)],
    ] as const) {
      it(`${surface}: exactly 1 048 576 bytes is accepted, one more is 413 payload_too_large`, async () => {
        const exact = bodyOfSize(CAP);
        expect(Buffer.byteLength(exact)).to.equal(CAP);
        const ok = await post(exact);
        expect(ok.status, ok.text).to.equal(202);
        const row = await p.db('mail_emails').where({ id: ok.json.id }).first('html');
        expect(row.html.length, 'the whole body was kept').to.equal(
          CAP - JSON.stringify(body({ html: '' })).length,
        );
        const over = await post(bodyOfSize(CAP + 1));
        expect(over.status).to.equal(413);
        expect(errorOf(over)).to.include({ code: 'payload_too_large' });
      });
    }
  });

  describe('the send rate: 10 a second per product, shared by both surfaces', () => {
    it('the 10th send of a second passes, the 11th is 429 with Retry-After and RateLimit headers; the next second passes again', async () => {
      for (let i = 0; i < 10; i++) {
        const ok = i % 2 === 0 ? await viaManagement(body()) : await viaEdge(body());
        expect(ok.status, `send ${i + 1}: ${ok.text}`).to.equal(202);
        if (i === 9) {
          expect(ok.headers.get('ratelimit-policy')).to.include('"mail-send";q=10;w=1');
          expect(ok.headers.get('ratelimit')).to.include('"mail-send";r=0;t=1');
        }
      }
      for (const refused of [await viaManagement(body()), await viaEdge(body())]) {
        expect(refused.status).to.equal(429);
        expect(errorOf(refused)).to.include({ code: 'rate_limited', step: 'send_rate' });
        expect(refused.headers.get('retry-after')).to.equal('1');
        expect(refused.headers.get('ratelimit')).to.include('"mail-send";r=0;t=1');
      }
      // The edge's own per-IP policy rides in the same fields.
      expect((await viaEdge(body())).headers.get('ratelimit-policy')).to.match(
        /"per-ip";q=\d+;w=60, "mail-send";q=10;w=1/,
      );
      const before = await p
        .db('mail_emails')
        .where({ product_id: p.product.productId })
        .count<{ c: string }[]>({ c: '*' });
      clock.advance(1000);
      expect((await viaEdge(body())).status).to.equal(202);
      const afterCount = await p
        .db('mail_emails')
        .where({ product_id: p.product.productId })
        .count<{ c: string }[]>({ c: '*' });
      expect(Number(afterCount[0]!.c) - Number(before[0]!.c), 'refused sends kept nothing').to.equal(1);
    });

    it('a suppressed recipient counts toward the rate; another product has a rate of its own', async () => {
      await p.call('POST', '/mail/suppressions', p.product.ownerToken, { address: 'gone@example.net' });
      for (let i = 0; i < 10; i++)
        expect((await viaManagement(body({ to: 'gone@example.net' }))).status).to.equal(202);
      expect((await viaManagement(body())).status).to.equal(429);
      const other = await p.newProduct('mail-accept-other', 'other-accept.example.test');
      const theirs = await viaManagement(body({ from: from(other) }), {}, other.ownerToken);
      expect(theirs.status, theirs.text).to.equal(202);
    });
  });

  describe('Idempotency-Key', () => {
    it('the same key and body answer the first id on either surface, without counting toward the rate; another body is 409 mismatch', async () => {
      const key = { 'Idempotency-Key': `order-${Date.now()}` };
      const first = await viaManagement(body(), key);
      expect(first.status).to.equal(202);
      const again = await viaEdge(body(), key);
      expect(again.status).to.equal(202);
      expect(again.json.id).to.equal(first.json.id);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      // Key order does not change the canonical body.
      const reordered = await viaManagement(
        { html: '<p>x</p>', subject: 'Hi', to: 'bob@example.net', from: from() },
        key,
      );
      expect(reordered.json.id).to.equal(first.json.id);
      const mismatch = await viaEdge(body({ subject: 'Other' }), key);
      expect(mismatch.status).to.equal(409);
      expect(errorOf(mismatch)).to.include({ code: 'idempotency_key_mismatch', step: 'idempotency' });
      // One send counted: nine more fit in this second.
      for (let i = 0; i < 9; i++) expect((await viaManagement(body())).status).to.equal(202);
      expect((await viaManagement(body())).status).to.equal(429);
    });

    it('a first request still in progress: 409 idempotency_key_in_use with Retry-After', async () => {
      const key = `in-flight-${Date.now()}`;
      const { sha256Hex } = await import('@lattice/core');
      const { canonicalJson } = await import('@lattice/http');
      await p.db('mail_idempotency_keys').insert({
        product_id: p.product.productId,
        key_hash: sha256Hex(key),
        body_hash: sha256Hex(canonicalJson(body())),
        email_id: '00000000-0000-4000-8000-000000000001',
        completed: false,
        expires_at: new Date(clock.nowMs() + 5 * 60_000),
      });
      const busy = await viaEdge(body(), { 'Idempotency-Key': key });
      expect(busy.status).to.equal(409);
      expect(errorOf(busy)).to.include({ code: 'idempotency_key_in_use' });
      expect(busy.headers.get('retry-after')).to.equal('1');
    });

    it('a refused request stores no key; a key after 5 minutes is free again; a malformed key is 400 naming the header', async () => {
      const key = { 'Idempotency-Key': `refused-${Date.now()}` };
      const refused = await viaManagement(body({ from: 'x@unverified.example.test' }), key);
      expect(refused.status).to.equal(422);
      const later = await viaManagement(body(), key);
      expect(later.status).to.equal(202);
      expect(later.headers.get('idempotent-replayed')).to.equal(null);
      clock.advance(5 * 60_000);
      const fresh = await viaManagement(body({ subject: 'changed' }), key);
      expect(fresh.status, 'the first claim expired').to.equal(202);
      expect(fresh.json.id).to.not.equal(later.json.id);
      const bad = await viaEdge(body(), { 'Idempotency-Key': 'x'.repeat(256) });
      expect(bad.status).to.equal(400);
      expect(errorOf(bad).fields?.map((f) => f.path)).to.deep.equal(['headers.idempotency-key']);
    });
  });

  describe('verified domains and mail-key locks', () => {
    it('from outside the verified domains, or on a subdomain of one: 422 domain_not_verified on both surfaces', async () => {
      for (const sender of [`a@unknown.example.test`, `a@sub.${p.product.domain}`]) {
        for (const refused of [
          await viaManagement(body({ from: sender })),
          await viaEdge(body({ from: sender })),
        ]) {
          expect(refused.status).to.equal(422);
          expect(errorOf(refused)).to.include({ code: 'domain_not_verified', step: 'domain_check' });
        }
      }
      // A domain that exists but is pending (created through the API, never verified).
      const created = await p.call<{ id: string; name: string }>(
        'POST',
        '/mail/domains',
        p.product.ownerToken,
        {
          name: `pending-${Date.now()}.example.test`,
        },
      );
      expect(created.status).to.equal(201);
      const pending = await viaManagement(body({ from: `a@${created.json.name}` }));
      expect(errorOf(pending)).to.include({ code: 'domain_not_verified' });
      // Case and a display name do not matter.
      expect(
        (await viaManagement(body({ from: `Ann <A@${p.product.domain.toUpperCase()}>` }))).status,
      ).to.equal(202);
    });

    it('a domain-locked mail key sends from its domain only; its imported copy on the edge sends from any verified domain', async () => {
      const second = `second-${Date.now()}.example.test`;
      await p.db('mail_domains').insert({
        id: (await import('node:crypto')).randomUUID(),
        product_id: p.product.productId,
        name: second,
        status: 'verified',
      });
      const locked = await p.call<{ key: string }>('POST', '/mail/api-keys', p.product.ownerToken, {
        name: 'locked',
        scope: 'sending_access',
        domain_id: p.product.domainId,
      });
      expect(locked.status).to.equal(201);
      expect((await viaManagement(body(), {}, locked.json.key)).status).to.equal(202);
      const elsewhere = await viaManagement(body({ from: `a@${second}` }), {}, locked.json.key);
      expect(elsewhere.status).to.equal(422);
      expect(errorOf(elsewhere)).to.include({ code: 'domain_not_verified' });

      const imported = await p.call('POST', '/organization/public-keys/import', p.product.ownerToken, {
        toolkit: 'mail',
      });
      expect(imported.status, imported.text).to.be.oneOf([200, 201]);
      // The imported copy keeps the lmk_ value; wait for the edge to learn it.
      let onEdge: Answer<{ id: string }> | undefined;
      const deadline = Date.now() + 10_000;
      do {
        onEdge = await viaEdge(body({ from: `a@${second}` }), {}, locked.json.key);
        if (onEdge.status !== 401) break;
        await new Promise((r) => setTimeout(r, 50));
      } while (Date.now() < deadline);
      expect(onEdge.status, onEdge.text).to.equal(202);
    });
  });

  describe('credentials', () => {
    it('management: member tokens of every role and both mail key scopes send and read; a realtime key is 401 restricted_api_key', async () => {
      const sent = await viaManagement(body());
      for (const role of ['admin', 'member'] as const) {
        const token = await p.member(role);
        expect((await viaManagement(body(), {}, token)).status, role).to.equal(202);
        expect((await p.call('GET', `/mail/emails/${sent.json.id}`, token)).status).to.equal(200);
      }
      for (const scope of ['full_access', 'sending_access']) {
        const made = await p.call<{ key: string }>('POST', '/mail/api-keys', p.product.ownerToken, {
          name: scope,
          scope,
        });
        expect((await viaManagement(body(), {}, made.json.key)).status, scope).to.equal(202);
        expect((await p.call('GET', `/mail/emails/${sent.json.id}`, made.json.key)).status).to.equal(200);
      }
      const sending = await p.call<{ key: string }>('POST', '/mail/api-keys', p.product.ownerToken, {
        name: 's',
        scope: 'sending_access',
      });
      const listing = await p.call('GET', '/mail/suppressions', sending.json.key);
      expect(listing.status).to.equal(401);
      expect(errorOf(listing)).to.include({ code: 'restricted_api_key' });
      const rtk = await p.call<{ key: string }>('POST', '/realtime/api-keys', p.product.ownerToken, {
        name: 'rt',
      });
      const refused = await viaManagement(body(), {}, rtk.json.key);
      expect(refused.status).to.equal(401);
      expect(errorOf(refused)).to.include({ code: 'restricted_api_key' });
      expect((await viaManagement(body(), {}, 'lmk_00000000000000000000000000000000')).status).to.equal(401);
    });

    it('edge: a key scoped to the route or the mail toolkit sends; a realtime-scoped key is 403 public_key_scope; no key is 401 public_key_required', async () => {
      const route = await p.publicKey({ kind: 'route', toolkit: 'mail', method: 'POST', path: '/emails' });
      expect((await viaEdge(body(), {}, route)).status).to.equal(202);
      const sent = await viaEdge(body(), {}, route);
      const reading = await p.edgeCall('GET', `/emails/${sent.json.id}`, route);
      expect(reading.status, 'the route key does not cover GET').to.equal(403);
      expect((await p.edgeCall('GET', `/emails/${sent.json.id}`, edgeKey)).status).to.equal(200);
      const realtime = await p.publicKey({ kind: 'toolkit', toolkit: 'realtime' });
      const scoped = await viaEdge(body(), {}, realtime);
      expect(scoped.status).to.equal(403);
      expect(errorOf(scoped)).to.include({ code: 'public_key_scope' });
      const none = await p.edgeCall('POST', '/emails', null, body());
      expect(none.status).to.equal(401);
      expect(errorOf(none)).to.include({ code: 'public_key_required' });
    });
  });

  describe('bad input: a 4xx with the error body, never a 5xx, nothing kept', () => {
    it('malformed JSON, wrong types, missing and unknown fields, a list of recipients, reserved headers', async () => {
      const before = await countEmails(p);
      const cases: Array<[unknown, number, string]> = [
        ['{"from": ', 400, 'invalid_json'],
        [[], 400, 'validation_error'],
        [{}, 400, 'validation_error'],
        [body({ to: 'a@example.net, b@example.net' }), 400, 'validation_error'],
        [body({ to: 'not an address' }), 400, 'validation_error'],
        [body({ html: undefined }), 400, 'validation_error'],
        [body({ subject: 5 }), 400, 'validation_error'],
        [body({ cc: 'x@example.net' }), 400, 'validation_error'],
        [body({ headers: { Bcc: 'spy@example.net' } }), 400, 'validation_error'],
        [body({ headers: { 'X-Ok': 'a\r\nBcc: spy@example.net' } }), 400, 'validation_error'],
        [body({ tags: [{ name: 'bad tag', value: 'x' }] }), 400, 'validation_error'],
        // PostgreSQL cannot store NUL: refused by name, never a 500.
        [body({ subject: 'a\u0000b' }), 400, 'validation_error'],
        [body({ html: '<p>\u0000</p>' }), 400, 'validation_error'],
        [body({ headers: { 'X-Ok': 'a\u0000' } }), 400, 'validation_error'],
      ];
      for (const [sent, status, code] of cases) {
        for (const answer of [await viaManagement(sent), await viaEdge(sent)]) {
          expect(answer.status, JSON.stringify(sent)).to.equal(status);
          expect(errorOf(answer).code).to.equal(code);
        }
      }
      const fields = errorOf(
        await viaEdge(body({ to: 'a@example.net, b@example.net', from: 'nope' })),
      ).fields;
      expect(fields?.map((f) => f.path)).to.deep.equal(['body.from', 'body.to']);
      for (const path of ['/mail/suppressions?cursor=%00', '/mail/suppressions/%00']) {
        const method = path.includes('?') ? 'GET' : 'DELETE';
        const answer = await p.call(method, path, p.product.ownerToken);
        expect(answer.status, path).to.equal(400);
        expect(errorOf(answer).code).to.equal('validation_error');
      }
      const wrongType = await p.edgeCall('POST', '/emails', edgeKey, 'from=a', {
        'content-type': 'text/plain',
      });
      expect(wrongType.status).to.equal(415);
      expect(await countEmails(p)).to.equal(before);
    });

    it('reading: another product’s email and an unknown or malformed id are 404 alike', async () => {
      const mine = await viaManagement(body());
      const other = await p.newProduct('mail-accept-reader', 'reader-accept.example.test');
      for (const id of [mine.json.id, '00000000-0000-4000-8000-000000000009', 'not-a-uuid']) {
        const answer = await p.call('GET', `/mail/emails/${id}`, other.ownerToken);
        expect(answer.status, id).to.equal(404);
        expect(errorOf(answer)).to.include({ code: 'not_found' });
      }
      expect((await p.edgeCall('GET', `/emails/${mine.json.id}`, edgeKey)).status).to.equal(200);
    });
  });
});

async function countEmails(p: MailPlatform): Promise<number> {
  const [row] = await p
    .db('mail_emails')
    .where({ product_id: p.product.productId })
    .count<{ c: string }[]>({ c: '*' });
  return Number(row!.c);
}
