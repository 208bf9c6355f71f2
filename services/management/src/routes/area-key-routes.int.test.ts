// Mail keys (lmk_) and realtime keys (rtk_) through the management API, against real
// PostgreSQL: created once with their secret, listed without it, stored hashed, usable as
// management credentials within their own area only, and dead on the API once deleted.
import { sha256Hex } from '@lattice/core';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import type { mailKeyView, realtimeKeyView } from './key-views.ts';

type MailKeyJson = ReturnType<typeof mailKeyView>;
type RealtimeKeyJson = ReturnType<typeof realtimeKeyView>;
interface ListJson<T> {
  data: T[];
  next_cursor: string | null;
}

const MAIL = '/mail/api-keys';
const REALTIME = '/realtime/api-keys';
const INVALID_TOKEN = {
  error: {
    code: 'invalid_token',
    message: 'The token is malformed, unknown or revoked',
    step: 'token_validation',
  },
};

describe('mail and realtime API keys (management API, real PostgreSQL)', () => {
  let t: TestManagement;

  before(async () => {
    t = await startTestManagement();
  });
  after(() => t.close());

  const domainOf = async (productId: string) =>
    ((await t.db('mail_domains').where({ product_id: productId }).first()) as { id: string }).id;
  const mailKey = (token: string, body: unknown) =>
    t.call<MailKeyJson & { key: string }>('POST', MAIL, token, body);
  const realtimeKey = (token: string, body?: unknown) =>
    t.call<RealtimeKeyJson & { key: string }>('POST', REALTIME, token, body);

  describe('mail keys', () => {
    it('creates a key shown once, lists it without the secret, and stores only its hash', async () => {
      const p = await t.newProduct('mk');
      const r = await mailKey(p.owner_token, { name: 'sender', scope: 'sending_access' });
      expect(r.status).to.equal(201);
      const { key, ...shown } = r.json;
      expect(key).to.match(/^lmk_[0-9a-f]{32}$/);
      expect(shown).to.deep.equal({
        id: shown.id,
        name: 'sender',
        scope: 'sending_access',
        domain_id: null,
        visible: key.slice(4, 12),
        created_at: shown.created_at,
      });
      const list = await t.call<ListJson<MailKeyJson>>('GET', MAIL, p.owner_token);
      expect(list.json).to.deep.equal({ data: [shown], next_cursor: null });
      expect(list.text).to.not.include(key.slice(4));

      const rows = await t.db('mail_api_keys').where({ product_id: p.product_id });
      expect(rows.map((row) => row.key_hash)).to.deep.equal([sha256Hex(key)]);
      expect(JSON.stringify(rows)).to.not.include(key.slice(4));
    });

    it('locks a key to a domain of the product, and refuses any other domain id', async () => {
      const p = await t.newProduct('mk-domain', { verifiedDomain: 'mail.example.test' });
      const other = await t.newProduct('mk-other', { verifiedDomain: 'other.example.test' });
      const domainId = await domainOf(p.product_id);
      const locked = await mailKey(p.owner_token, {
        name: 'locked',
        scope: 'full_access',
        domain_id: domainId,
      });
      expect(locked.status).to.equal(201);
      expect(locked.json.domain_id).to.equal(domainId);
      const unlocked = await mailKey(p.owner_token, { name: 'free', scope: 'full_access', domain_id: null });
      expect(unlocked.status).to.equal(201);
      expect(unlocked.json.domain_id).to.equal(null);

      for (const domain_id of [await domainOf(other.product_id), '7d1b3a5e-3f43-4c1e-9a59-3f0d5c4f8e21']) {
        const r = await t.call('POST', MAIL, p.owner_token, { name: 'x', scope: 'full_access', domain_id });
        expect(r.status).to.equal(400);
        expect(r.json.error).to.deep.include({
          code: 'validation_error',
          step: 'validation',
          fields: [{ path: 'body.domain_id', message: 'is not a mail domain of this product' }],
        });
      }
      const bad = await t.call('POST', MAIL, p.owner_token, {
        name: 'x',
        scope: 'full_access',
        domain_id: 'nope',
      });
      expect(bad.status).to.equal(400);
      const listed = await t.call<ListJson<MailKeyJson>>('GET', MAIL, p.owner_token);
      expect(listed.json.data.map((k) => k.name)).to.deep.equal(['free', 'locked']);
    });

    it('validates name (1 to 64 characters) and scope', async () => {
      const p = await t.newProduct('mk-bounds');
      expect((await mailKey(p.owner_token, { name: 'm'.repeat(64), scope: 'full_access' })).status).to.equal(
        201,
      );
      for (const body of [
        { name: 'm'.repeat(65), scope: 'full_access' },
        { name: '', scope: 'full_access' },
        { name: 'x', scope: 'admin' },
        { name: 'x' },
      ]) {
        const r = await t.call('POST', MAIL, p.owner_token, body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.json.error.code).to.equal('validation_error');
      }
    });

    it('deletes a key: it leaves the list and stops authenticating at once', async () => {
      const p = await t.newProduct('mk-delete');
      const { id, key } = (await mailKey(p.owner_token, { name: 'gone', scope: 'full_access' })).json;
      expect((await t.call('GET', MAIL, key)).status).to.equal(200);
      const del = await t.call('DELETE', `${MAIL}/${id}`, p.owner_token);
      expect(del.status).to.equal(204);
      expect(del.text).to.equal('');
      expect((await t.call<ListJson<MailKeyJson>>('GET', MAIL, p.owner_token)).json.data).to.deep.equal([]);
      const after = await t.call('GET', MAIL, key);
      expect(after.status).to.equal(401);
      expect(after.json).to.deep.equal(INVALID_TOKEN);
      const again = await t.call('DELETE', `${MAIL}/${id}`, p.owner_token);
      expect(again.status).to.equal(404);
      expect(again.json.error).to.include({ code: 'not_found', step: 'lookup' });
    });
  });

  describe('realtime keys', () => {
    it('creates named and unnamed keys shown once, and stores only their hashes', async () => {
      const p = await t.newProduct('rk');
      const unnamed = await realtimeKey(p.owner_token);
      expect(unnamed.status).to.equal(201);
      expect(unnamed.json.name).to.equal(null);
      expect(unnamed.json.key).to.match(/^rtk_[0-9a-f]{32}$/);
      const named = await realtimeKey(p.owner_token, { name: 'r'.repeat(64) });
      expect(named.status).to.equal(201);
      expect(named.json.visible).to.equal(named.json.key.slice(4, 12));
      expect((await realtimeKey(p.owner_token, { name: 'r'.repeat(65) })).status).to.equal(400);
      expect((await realtimeKey(p.owner_token, { name: '' })).status).to.equal(400);

      const list = await t.call<ListJson<RealtimeKeyJson>>('GET', REALTIME, p.owner_token);
      expect(list.json.data.map((k) => k.id)).to.deep.equal([named.json.id, unnamed.json.id]);
      const rows = await t.db('realtime_api_keys').where({ product_id: p.product_id });
      const text = JSON.stringify([list.json, rows]);
      for (const { key } of [named.json, unnamed.json]) {
        expect(text).to.not.include(key.slice(4));
        expect(rows.map((r) => r.key_hash)).to.include(sha256Hex(key));
      }
    });

    it('pages newest first with a cursor', async () => {
      const p = await t.newProduct('rk-page');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await realtimeKey(p.owner_token, { name: `r${i}` })).json.id);
      const first = await t.call<ListJson<RealtimeKeyJson>>('GET', `${REALTIME}?limit=2`, p.owner_token);
      expect(first.json.data.map((k) => k.id)).to.deep.equal([ids[2], ids[1]]);
      expect(first.json.next_cursor).to.be.a('string');
      const next = await t.call<ListJson<RealtimeKeyJson>>(
        'GET',
        `${REALTIME}?limit=2&cursor=${first.json.next_cursor}`,
        p.owner_token,
      );
      expect(next.json.data.map((k) => k.id)).to.deep.equal([ids[0]]);
      expect(next.json.next_cursor).to.equal(null);
    });

    it('deletes a key: it stops authenticating at once', async () => {
      const p = await t.newProduct('rk-delete');
      const { id, key } = (await realtimeKey(p.owner_token, { name: 'gone' })).json;
      expect((await t.call('GET', REALTIME, key)).status).to.equal(200);
      expect((await t.call('DELETE', `${REALTIME}/${id}`, key)).status).to.equal(204);
      expect((await t.call('GET', REALTIME, key)).json).to.deep.equal(INVALID_TOKEN);
      expect((await t.call('DELETE', `${REALTIME}/${id}`, p.owner_token)).status).to.equal(404);
    });
  });

  describe('area keys as management credentials', () => {
    it('reach their own area, and get 401 restricted_api_key everywhere else', async () => {
      const p = await t.newProduct('area-auth');
      const full = (await mailKey(p.owner_token, { name: 'full', scope: 'full_access' })).json.key;
      const sending = (await mailKey(p.owner_token, { name: 'send', scope: 'sending_access' })).json.key;
      const rtk = (await realtimeKey(p.owner_token)).json.key;

      const allowed: Array<[string, string, string, unknown?]> = [
        [full, 'GET', MAIL],
        [full, 'POST', MAIL, { name: 'by-key', scope: 'sending_access' }],
        [rtk, 'GET', REALTIME],
        [rtk, 'POST', REALTIME, {}],
      ];
      for (const [key, method, path, body] of allowed) {
        const r = await t.call(method, path, key, body);
        expect(r.status, `${key.slice(0, 4)} ${method} ${path}`).to.be.oneOf([200, 201]);
      }

      const refused: Array<[string, string, string, unknown?]> = [
        [full, 'GET', REALTIME],
        [full, 'POST', REALTIME, {}],
        [full, 'GET', '/organization/product'],
        [full, 'GET', '/organization/public-keys'],
        [full, 'POST', '/organization/public-keys', { name: 'x', scope: { kind: 'product' } }],
        [full, 'POST', '/organization/public-keys/import', { toolkit: 'mail' }],
        [rtk, 'GET', MAIL],
        [rtk, 'POST', MAIL, { name: 'x', scope: 'full_access' }],
        [rtk, 'GET', '/organization/product'],
        [rtk, 'GET', '/organization/public-keys'],
        [rtk, 'POST', '/organization/public-keys/import', { toolkit: 'realtime' }],
        [sending, 'GET', MAIL],
        [sending, 'POST', MAIL, { name: 'x', scope: 'full_access' }],
        [sending, 'DELETE', `${MAIL}/7d1b3a5e-3f43-4c1e-9a59-3f0d5c4f8e21`],
        [sending, 'GET', REALTIME],
        [sending, 'GET', '/organization/public-keys'],
      ];
      for (const [key, method, path, body] of refused) {
        const r = await t.call(method, path, key, body);
        const label = `${key === sending ? 'sending_access ' : ''}${key.slice(0, 4)} ${method} ${path}`;
        expect(r.status, label).to.equal(401);
        expect(r.json.error.code, label).to.equal('restricted_api_key');
        expect(r.json.error.step, label).to.equal('authorization');
      }
      // Nothing refused was created.
      const mailNames = (await t.call<ListJson<MailKeyJson>>('GET', MAIL, p.owner_token)).json.data.map(
        (k) => k.name,
      );
      expect(mailNames.sort()).to.deep.equal(['by-key', 'full', 'send']);
      expect(
        (await t.call<{ data: unknown[] }>('GET', '/organization/public-keys', p.owner_token)).json.data,
      ).to.deep.equal([]);
    });

    it('reach only their own product', async () => {
      const a = await t.newProduct('area-a');
      const b = await t.newProduct('area-b');
      const aKey = (await mailKey(a.owner_token, { name: 'a', scope: 'full_access' })).json.key;
      const bKey = (await mailKey(b.owner_token, { name: 'b', scope: 'full_access' })).json;
      const seen = await t.call<ListJson<MailKeyJson>>('GET', MAIL, aKey);
      expect(seen.json.data.map((k) => k.name)).to.deep.equal(['a']);
      expect((await t.call('DELETE', `${MAIL}/${bKey.id}`, aKey)).status).to.equal(404);
      expect((await t.call('GET', MAIL, bKey.key)).status).to.equal(200);
    });

    it('are refused alike when unknown, mistyped or of the wrong kind', async () => {
      const p = await t.newProduct('area-junk');
      const { key } = (await mailKey(p.owner_token, { name: 'k', scope: 'full_access' })).json;
      for (const bad of [
        `lmk_${'0'.repeat(32)}`,
        `rtk_${key.slice(4)}`,
        `lpk_${key.slice(4)}`,
        `${key.slice(0, -1)}0`,
      ]) {
        if (bad === key) continue;
        const r = await t.call('GET', MAIL, bad);
        expect(r.status, bad).to.equal(401);
        expect(r.json, bad).to.deep.equal(INVALID_TOKEN);
      }
    });
  });
});
