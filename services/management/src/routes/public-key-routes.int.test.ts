// Product public keys through the management API, against real PostgreSQL and Redis: every
// transition of the key state table, who may make it, what listings show, what is stored, and
// the announcements the edges reload on.
import { ENVIRONMENTS, sha256Hex } from '@lattice/core';
import { createPostgresPublicKeyRepository } from '@lattice/keys';
import { expect } from 'chai';
import { useManagementWithKeyChanges } from '../testing/key-change-listener.ts';
import { startTestManagement } from '../testing/test-management.ts';
import type { publicKeyView } from './key-views.ts';

type PublicKeyJson = ReturnType<typeof publicKeyView>;
type CreatedJson = PublicKeyJson & { key: string };
interface ListJson {
  data: PublicKeyJson[];
  next_cursor: string | null;
}

const KEYS = '/organization/public-keys';
const MAIL_TOOLKIT = { kind: 'toolkit', toolkit: 'mail' } as const;
const PUBLISH_ROUTE = { kind: 'route', toolkit: 'realtime', method: 'POST', path: '/messages' } as const;

describe('product public keys (management API, real PostgreSQL and Redis)', () => {
  const suite = useManagementWithKeyChanges();

  async function product() {
    const p = await suite.t.newProduct('pk');
    const [owner] = await suite.t.db('members').where({ product_id: p.product_id, role: 'owner' });
    return { ...p, ownerId: owner.id as string };
  }

  const create = (token: string, body: unknown) => suite.t.call<CreatedJson>('POST', KEYS, token, body);

  describe('create (none → active)', () => {
    it('mints an lpk_ key shown once, and lists it with the listing fields', async () => {
      const p = await product();
      const r = await create(p.owner_token, { name: 'backend', scope: MAIL_TOOLKIT });
      expect(r.status).to.equal(201);
      const { key, ...shown } = r.json;
      expect(key).to.match(/^lpk_[0-9a-f]{32}$/);
      expect(shown).to.deep.equal({
        id: shown.id,
        name: 'backend',
        prefix: 'lpk_',
        visible: key.slice(4, 12),
        toolkits: ['mail'],
        scope: MAIL_TOOLKIT,
        environment: 'production',
        status: 'active',
        created_at: shown.created_at,
        creator: p.ownerId,
        imported: false,
      });
      expect(Date.now() - Date.parse(shown.created_at)).to.be.within(0, 60_000);

      const list = await suite.t.call<ListJson>('GET', KEYS, p.owner_token);
      expect(list.status).to.equal(200);
      expect(list.json).to.deep.equal({ data: [shown], next_cursor: null });
      // The plaintext never comes back: not in the list, not in any later answer.
      expect(list.text).to.not.include(key.slice(4));
    });

    it('shows the toolkits each kind of scope reaches', async () => {
      const p = await product();
      const product_ = await create(p.owner_token, { name: 'all', scope: { kind: 'product' } });
      const route = await create(p.owner_token, { name: 'one', scope: PUBLISH_ROUTE });
      expect(product_.json.toolkits).to.deep.equal(['mail', 'realtime']);
      expect(route.json.toolkits).to.deep.equal(['realtime']);
      expect(route.json.scope).to.deep.equal(PUBLISH_ROUTE);
    });

    it('stores only the hash and the visible part', async () => {
      const p = await product();
      const { key, id } = (await create(p.owner_token, { name: 'stored', scope: { kind: 'product' } })).json;
      const rows = await suite.t.db('public_keys').where({ product_id: p.product_id });
      expect(rows).to.have.length(1);
      expect(rows[0].id).to.equal(id);
      expect(rows[0].key_hash).to.equal(sha256Hex(key));
      expect(rows[0].visible).to.equal(key.slice(4, 12));
      expect(JSON.stringify(rows)).to.not.include(key.slice(4));
    });

    it('creates a development key that only the development edge serves', async () => {
      const p = await product();
      const dev = await create(p.owner_token, {
        name: 'dev',
        scope: MAIL_TOOLKIT,
        environment: 'development',
      });
      expect(dev.status).to.equal(201);
      expect(dev.json.environment).to.equal('development');
      const repo = createPostgresPublicKeyRepository(suite.t.db);
      const hash = sha256Hex(dev.json.key);
      const epoch = new Date(0);
      expect((await repo.snapshotKeys('development', epoch)).map((k) => k.hash)).to.include(hash);
      expect((await repo.snapshotKeys('production', epoch)).map((k) => k.hash)).to.not.include(hash);

      const prodOnly = await suite.t.call<ListJson>('GET', `${KEYS}?environment=production`, p.owner_token);
      const devOnly = await suite.t.call<ListJson>('GET', `${KEYS}?environment=development`, p.owner_token);
      expect(prodOnly.json.data).to.deep.equal([]);
      expect(devOnly.json.data.map((k) => k.id)).to.deep.equal([dev.json.id]);
    });

    it('accepts names of 1 and 64 characters, and refuses empty, blank and 65', async () => {
      const p = await product();
      for (const name of ['a', 'n'.repeat(64), '😀'.repeat(64), ' x ']) {
        const r = await create(p.owner_token, { name, scope: MAIL_TOOLKIT });
        expect(r.status, name).to.equal(201);
        expect(r.json.name).to.equal(name);
      }
      for (const name of ['', '   ', 'n'.repeat(65), '😀'.repeat(65)]) {
        const r = await suite.t.call('POST', KEYS, p.owner_token, { name, scope: MAIL_TOOLKIT });
        expect(r.status, name).to.equal(400);
        expect(r.json.error.code).to.equal('validation_error');
        expect([...new Set(r.json.error.fields?.map((f) => f.path))]).to.deep.equal(['body.name']);
      }
      expect((await suite.t.call<ListJson>('GET', KEYS, p.owner_token)).json.data).to.have.length(4);
    });

    it('refuses scopes that name no keyed route, with the failing field', async () => {
      const p = await product();
      const bad: Array<[unknown, string]> = [
        [{ kind: 'route', toolkit: 'mail', method: 'GET', path: '/t/open/{token}' }, 'body.scope'],
        [{ kind: 'route', toolkit: 'mail', method: 'POST', path: '/messages' }, 'body.scope'],
        [{ kind: 'route', toolkit: 'realtime' }, 'body.scope'],
        [{ kind: 'toolkit' }, 'body.scope.toolkit'],
        [{ kind: 'toolkit', toolkit: 'chat' }, 'body.scope.toolkit'],
        [{ kind: 'product', toolkit: 'mail' }, 'body.scope.toolkit'],
        [{ kind: 'everything' }, 'body.scope.kind'],
      ];
      for (const [scope, path] of bad) {
        const r = await suite.t.call('POST', KEYS, p.owner_token, { name: 'x', scope });
        expect(r.status, JSON.stringify(scope)).to.equal(400);
        expect(r.json.error.code).to.equal('validation_error');
        expect(r.json.error.step).to.equal('validation');
        expect(
          r.json.error.fields?.map((f) => f.path),
          JSON.stringify(scope),
        ).to.include(path);
      }
      expect((await suite.t.call<ListJson>('GET', KEYS, p.owner_token)).json.data).to.deep.equal([]);
    });
  });

  describe('update-scope (active → active) and revoke (active → revoked)', () => {
    for (const environment of ENVIRONMENTS) {
      it(`${environment}: changes the scope of an active key, keeping everything else`, async () => {
        const p = await product();
        const created = (await create(p.owner_token, { name: 'k', scope: MAIL_TOOLKIT, environment })).json;
        const r = await suite.t.call<PublicKeyJson>('PUT', `${KEYS}/${created.id}/scope`, p.owner_token, {
          scope: PUBLISH_ROUTE,
        });
        expect(r.status).to.equal(200);
        const { key: _key, ...before } = created;
        expect(r.json).to.deep.equal({ ...before, scope: PUBLISH_ROUTE, toolkits: ['realtime'] });
        const [snap] = (
          await createPostgresPublicKeyRepository(suite.t.db).snapshotKeys(environment, new Date(0))
        ).filter((k) => k.id === created.id);
        expect(snap?.scope).to.deep.equal(PUBLISH_ROUTE);
        const note = await suite.changes.waitFor(
          (m) => m.product_id === p.product_id && m.change === 'scope_updated',
        );
        expect(note).to.deep.include({
          channel: `${suite.t.config.redisKeyPrefix}public-keys:changed:${environment}`,
          environment,
          key_ids: [created.id],
        });
      });

      it(`${environment}: revokes permanently: a revoked key can be neither revoked again nor re-scoped`, async () => {
        const p = await product();
        const created = (await create(p.owner_token, { name: 'k', scope: MAIL_TOOLKIT, environment })).json;
        const revoked = await suite.t.call<PublicKeyJson>(
          'POST',
          `${KEYS}/${created.id}/revoke`,
          p.owner_token,
        );
        expect(revoked.status).to.equal(200);
        expect(revoked.json.status).to.equal('revoked');
        expect(Date.parse(revoked.json.revoked_at!)).to.be.at.least(Date.parse(created.created_at));
        expect(revoked.text).to.not.include(created.key.slice(4));

        const again = await suite.t.call('POST', `${KEYS}/${created.id}/revoke`, p.owner_token);
        expect(again.status).to.equal(409);
        expect(again.json.error).to.include({ code: 'public_key_revoked', step: 'state' });
        const rescope = await suite.t.call('PUT', `${KEYS}/${created.id}/scope`, p.owner_token, {
          scope: { kind: 'product' },
        });
        expect(rescope.status).to.equal(409);
        expect(rescope.json.error.code).to.equal('public_key_revoked');

        const list = (
          await suite.t.call<ListJson>('GET', `${KEYS}?environment=${environment}`, p.owner_token)
        ).json.data;
        expect(list).to.deep.equal([revoked.json]);
        expect(list[0]!.scope).to.deep.equal(MAIL_TOOLKIT);

        // The edge's view: the key is served as revoked (for its 403 window), never as active again.
        const snap = (
          await createPostgresPublicKeyRepository(suite.t.db).snapshotKeys(environment, new Date(0))
        ).find((k) => k.id === created.id);
        expect(snap?.revokedAtMs).to.be.a('number');
        const note = await suite.changes.waitFor(
          (m) => m.product_id === p.product_id && m.change === 'revoked',
        );
        expect(note).to.deep.include({
          channel: `${suite.t.config.redisKeyPrefix}public-keys:changed:${environment}`,
          environment,
          key_ids: [created.id],
        });
      });
    }

    it('answers 404 for unknown ids and for keys of another product, changing nothing', async () => {
      const a = await product();
      const b = await product();
      const bKey = (await create(b.owner_token, { name: 'b', scope: MAIL_TOOLKIT })).json;
      for (const id of ['7d1b3a5e-3f43-4c1e-9a59-3f0d5c4f8e21', bKey.id]) {
        const rescope = await suite.t.call('PUT', `${KEYS}/${id}/scope`, a.owner_token, {
          scope: { kind: 'product' },
        });
        const revoke = await suite.t.call('POST', `${KEYS}/${id}/revoke`, a.owner_token);
        for (const r of [rescope, revoke]) {
          expect(r.status).to.equal(404);
          expect(r.json.error).to.include({ code: 'not_found', step: 'lookup' });
        }
      }
      const bList = (await suite.t.call<ListJson>('GET', KEYS, b.owner_token)).json.data;
      expect(bList.map((k) => [k.status, k.scope])).to.deep.equal([['active', MAIL_TOOLKIT]]);
      expect((await suite.t.call<ListJson>('GET', KEYS, a.owner_token)).json.data).to.deep.equal([]);
    });
  });

  describe('roles', () => {
    it('lets owners and admins make every transition, and refuses members with 403 forbidden', async () => {
      const p = await product();
      const admin = await suite.t.newMember(p.product_id, 'admin');
      const member = await suite.t.newMember(p.product_id, 'member');

      const byAdmin = await create(admin.token, { name: 'admin-made', scope: MAIL_TOOLKIT });
      expect(byAdmin.status).to.equal(201);
      expect(byAdmin.json.creator).to.equal(admin.memberId);
      const id = byAdmin.json.id;

      const refusals = [
        await suite.t.call('POST', KEYS, member.token, { name: 'nope', scope: MAIL_TOOLKIT }),
        await suite.t.call('PUT', `${KEYS}/${id}/scope`, member.token, { scope: { kind: 'product' } }),
        await suite.t.call('POST', `${KEYS}/${id}/revoke`, member.token),
        await suite.t.call('POST', `${KEYS}/import`, member.token, { toolkit: 'mail' }),
        // Refused before the body is even looked at.
        await suite.t.call('POST', KEYS, member.token, { name: '' }),
      ];
      for (const r of refusals) {
        expect(r.status).to.equal(403);
        expect(r.json).to.deep.equal({
          error: {
            code: 'forbidden',
            message: 'Only a member with role owner or admin may do this',
            step: 'authorization',
          },
        });
      }
      // Members may read the list; nothing they tried changed it.
      const seen = await suite.t.call<ListJson>('GET', KEYS, member.token);
      expect(seen.status).to.equal(200);
      expect(seen.json.data.map((k) => [k.name, k.status, k.scope])).to.deep.equal([
        ['admin-made', 'active', MAIL_TOOLKIT],
      ]);

      expect(
        (await suite.t.call('PUT', `${KEYS}/${id}/scope`, admin.token, { scope: { kind: 'product' } }))
          .status,
      ).to.equal(200);
      expect(
        (await suite.t.call('PUT', `${KEYS}/${id}/scope`, p.owner_token, { scope: MAIL_TOOLKIT })).status,
      ).to.equal(200);
      expect((await suite.t.call('POST', `${KEYS}/${id}/revoke`, admin.token)).status).to.equal(200);
      const ownerMade = await create(p.owner_token, { name: 'owner-made', scope: MAIL_TOOLKIT });
      expect(
        (await suite.t.call('POST', `${KEYS}/${ownerMade.json.id}/revoke`, p.owner_token)).status,
      ).to.equal(200);
    });
  });

  describe('listing', () => {
    it('pages newest first with a cursor, per environment', async () => {
      const p = await product();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const env = i === 2 ? 'development' : 'production';
        ids.push(
          (await create(p.owner_token, { name: `k${i}`, scope: MAIL_TOOLKIT, environment: env })).json.id,
        );
      }
      const newestFirst = [...ids].reverse();
      const first = await suite.t.call<ListJson>('GET', `${KEYS}?limit=2`, p.owner_token);
      expect(first.json.data.map((k) => k.id)).to.deep.equal(newestFirst.slice(0, 2));
      const second = await suite.t.call<ListJson>(
        'GET',
        `${KEYS}?limit=2&cursor=${first.json.next_cursor}`,
        p.owner_token,
      );
      expect(second.json.data.map((k) => k.id)).to.deep.equal(newestFirst.slice(2, 4));
      const third = await suite.t.call<ListJson>(
        'GET',
        `${KEYS}?limit=2&cursor=${second.json.next_cursor}`,
        p.owner_token,
      );
      expect(third.json).to.deep.equal({ data: [third.json.data[0]], next_cursor: null });
      expect(third.json.data[0]!.id).to.equal(newestFirst[4]);

      const prod = await suite.t.call<ListJson>(
        'GET',
        `${KEYS}?environment=production&limit=3`,
        p.owner_token,
      );
      expect(prod.json.data.map((k) => k.name)).to.deep.equal(['k4', 'k3', 'k1']);
      const rest = await suite.t.call<ListJson>(
        'GET',
        `${KEYS}?environment=production&limit=3&cursor=${prod.json.next_cursor}`,
        p.owner_token,
      );
      expect(rest.json).to.deep.equal({ data: [rest.json.data[0]], next_cursor: null });
      expect(rest.json.data[0]!.name).to.equal('k0');

      for (const query of ['limit=0', 'limit=101', 'cursor=abc', 'environment=staging']) {
        expect((await suite.t.call('GET', `${KEYS}?${query}`, p.owner_token)).status, query).to.equal(400);
      }
    });
  });

  describe('change notifications', () => {
    it('announces create, re-scope and revoke on the channel of the key’s environment', async () => {
      const p = await product();
      const created = (await create(p.owner_token, { name: 'n', scope: MAIL_TOOLKIT })).json;
      const onCreate = await suite.changes.waitFor(
        (m) => m.key_ids.includes(created.id) && m.change === 'created',
      );
      expect(onCreate).to.deep.equal({
        channel: `${suite.t.config.redisKeyPrefix}public-keys:changed:production`,
        product_id: p.product_id,
        environment: 'production',
        key_ids: [created.id],
        change: 'created',
      });

      await suite.t.call('PUT', `${KEYS}/${created.id}/scope`, p.owner_token, { scope: { kind: 'product' } });
      await suite.changes.waitFor((m) => m.key_ids.includes(created.id) && m.change === 'scope_updated');
      await suite.t.call('POST', `${KEYS}/${created.id}/revoke`, p.owner_token);
      const onRevoke = await suite.changes.waitFor(
        (m) => m.key_ids.includes(created.id) && m.change === 'revoked',
      );
      expect(onRevoke.channel).to.equal(onCreate.channel);

      const dev = (
        await create(p.owner_token, { name: 'd', scope: MAIL_TOOLKIT, environment: 'development' })
      ).json;
      const onDev = await suite.changes.waitFor((m) => m.key_ids.includes(dev.id));
      expect(onDev.channel).to.equal(`${suite.t.config.redisKeyPrefix}public-keys:changed:development`);
      expect(onDev.environment).to.equal('development');

      // Refused and failed changes announce nothing.
      await suite.t.call('POST', `${KEYS}/${created.id}/revoke`, p.owner_token);
      await create(p.owner_token, { name: '', scope: MAIL_TOOLKIT });
      const marker = (await create(p.owner_token, { name: 'marker', scope: MAIL_TOOLKIT })).json;
      await suite.changes.waitFor((m) => m.key_ids.includes(marker.id));
      const forProduct = suite.changes.received
        .filter((m) => m.product_id === p.product_id)
        .map((m) => m.change);
      expect(forProduct).to.deep.equal(['created', 'scope_updated', 'revoked', 'created', 'created']);
    });

    it('still answers when Redis is unreachable, and logs the missed announcement', async () => {
      const down = await startTestManagement({ redisUrl: 'redis://127.0.0.1:1' });
      try {
        const p = await down.newProduct('redis-down');
        const r = await down.call<CreatedJson>('POST', KEYS, p.owner_token, {
          name: 'k',
          scope: MAIL_TOOLKIT,
        });
        expect(r.status).to.equal(201);
        expect((await down.call('POST', `${KEYS}/${r.json.id}/revoke`, p.owner_token)).status).to.equal(200);
        const deadline = Date.now() + 5000;
        while (!down.logs.lines.some((l) => l.msg.includes('could not announce a public key change'))) {
          if (Date.now() > deadline) throw new Error('no log line about the failed announcement');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await down.close();
      }
    });
  });
});
