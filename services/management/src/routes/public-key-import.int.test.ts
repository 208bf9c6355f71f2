// Importing mail and realtime keys into the product's public key list, against real PostgreSQL
// and Redis: what carries over and what does not, that the copy is a second record revoked
// independently of its source, and that an imported key passes the edge's key check exactly
// like a minted one.
import { type Environment, sha256Hex, systemClock } from '@lattice/core';
import { PUBLIC_ROUTES, type PublicRoute } from '@lattice/http';
import { checkPublicKey, createKeySnapshot, createPostgresPublicKeyRepository } from '@lattice/keys';
import { expect } from 'chai';
import { useManagementWithKeyChanges } from '../testing/key-change-listener.ts';
import type { mailKeyView, publicKeyView, realtimeKeyView } from './key-views.ts';

type PublicKeyJson = ReturnType<typeof publicKeyView>;
type MailKeyJson = ReturnType<typeof mailKeyView> & { key: string };
type RealtimeKeyJson = ReturnType<typeof realtimeKeyView> & { key: string };

const KEYS = '/organization/public-keys';
const IMPORT = `${KEYS}/import`;
const route = (toolkit: string, method: string, path: string): PublicRoute =>
  PUBLIC_ROUTES.find((r) => r.toolkit === toolkit && r.method === method && r.path === path)!;

describe('importing toolkit keys as public keys (real PostgreSQL and Redis)', () => {
  const suite = useManagementWithKeyChanges();

  const mailKey = async (token: string, body: unknown) =>
    (await suite.t.call<MailKeyJson>('POST', '/mail/api-keys', token, body)).json;
  const realtimeKey = async (token: string, body?: unknown) =>
    (await suite.t.call<RealtimeKeyJson>('POST', '/realtime/api-keys', token, body)).json;
  const importKeys = (token: string, toolkit: string) =>
    suite.t.call<{ data: PublicKeyJson[] }>('POST', IMPORT, token, { toolkit });
  const listKeys = async (token: string) =>
    (await suite.t.call<{ data: PublicKeyJson[] }>('GET', KEYS, token)).json.data;

  /** Runs the edge's key check against what an environment's edge would load right now. */
  async function edgeCheck(
    productId: string,
    presented: string,
    r: PublicRoute,
    environment: Environment = 'production',
  ) {
    const keys = await createPostgresPublicKeyRepository(suite.t.db).snapshotKeys(
      environment,
      new Date(Date.now() - 30_000),
    );
    const snapshot = createKeySnapshot(keys, Date.now());
    const result = checkPublicKey({
      snapshot,
      presented,
      productId,
      route: r,
      clock: systemClock,
      revokedGraceMs: 30_000,
    });
    return result.ok ? 'ok' : result.error.code;
  }

  it('copies active mail keys with their value, visible part, name and date, scoped to the mail toolkit', async () => {
    const p = await suite.t.newProduct('import-mail', { verifiedDomain: 'import.example.test' });
    const domainId = (
      (await suite.t.db('mail_domains').where({ product_id: p.product_id }).first()) as { id: string }
    ).id;
    const billing = await mailKey(p.owner_token, { name: 'billing', scope: 'full_access' });
    const locked = await mailKey(p.owner_token, {
      name: 'locked',
      scope: 'sending_access',
      domain_id: domainId,
    });
    const deleted = await mailKey(p.owner_token, { name: 'deleted', scope: 'full_access' });
    expect((await suite.t.call('DELETE', `/mail/api-keys/${deleted.id}`, p.owner_token)).status).to.equal(
      204,
    );
    const unrelated = await realtimeKey(p.owner_token, { name: 'rt' });

    const r = await importKeys(p.owner_token, 'mail');
    expect(r.status).to.equal(200);
    const bySource = new Map(r.json.data.map((k) => [k.name, k]));
    expect([...bySource.keys()].sort()).to.deep.equal(['billing', 'locked']);
    for (const source of [billing, locked]) {
      const imported = bySource.get(source.name)!;
      expect(imported).to.deep.equal({
        id: imported.id,
        name: source.name,
        prefix: 'lmk_',
        visible: source.visible,
        toolkits: ['mail'],
        scope: { kind: 'toolkit', toolkit: 'mail' },
        environment: 'production',
        status: 'active',
        created_at: source.created_at,
        imported: true,
        imported_from: 'mail',
      });
      // Same value: the stored hash is the mail key's own.
      const [row] = await suite.t.db('public_keys').where({ id: imported.id });
      expect(row.key_hash).to.equal(sha256Hex(source.key));
      expect(row.created_by).to.equal(null);
    }
    // The list shows the same: imported badge, no creator; the realtime key was not touched.
    const listed = await listKeys(p.owner_token);
    expect(listed.map((k) => k.name).sort()).to.deep.equal(['billing', 'locked']);
    for (const k of listed) expect(k).to.not.have.property('creator');
    expect(JSON.stringify(listed)).to.not.include(unrelated.key.slice(4));
    for (const { key } of [billing, locked, deleted]) {
      expect(
        JSON.stringify(await suite.t.db('public_keys').where({ product_id: p.product_id })),
      ).to.not.include(key.slice(4));
    }

    // The imported keys open both keyed mail routes, whatever domain lock the source had, and
    // nothing outside the mail toolkit; the deleted key opens nothing.
    for (const key of [billing.key, locked.key]) {
      expect(await edgeCheck(p.product_id, key, route('mail', 'POST', '/emails'))).to.equal('ok');
      expect(await edgeCheck(p.product_id, key, route('mail', 'GET', '/emails/{id}'))).to.equal('ok');
      expect(await edgeCheck(p.product_id, key, route('realtime', 'POST', '/messages'))).to.equal(
        'public_key_scope',
      );
    }
    expect(await edgeCheck(p.product_id, deleted.key, route('mail', 'POST', '/emails'))).to.equal(
      'public_key_invalid',
    );

    const note = await suite.changes.waitFor((m) => m.product_id === p.product_id && m.change === 'imported');
    expect(note.environment).to.equal('production');
    expect([...note.key_ids].sort()).to.deep.equal(r.json.data.map((k) => k.id).sort());
  });

  it('copies realtime keys scoped to the realtime toolkit, naming unnamed ones, skipping deleted ones', async () => {
    const p = await suite.t.newProduct('import-rt');
    const unnamed = await realtimeKey(p.owner_token);
    const named = await realtimeKey(p.owner_token, { name: 'chat' });
    const deleted = await realtimeKey(p.owner_token, { name: 'gone' });
    expect((await suite.t.call('DELETE', `/realtime/api-keys/${deleted.id}`, p.owner_token)).status).to.equal(
      204,
    );
    const r = await importKeys(p.owner_token, 'realtime');
    expect(r.status).to.equal(200);
    // Newest first, like every key list.
    expect(r.json.data.map((k) => [k.name, k.prefix, k.visible, k.created_at])).to.deep.equal([
      ['chat', 'rtk_', named.visible, named.created_at],
      ['Imported from realtime', 'rtk_', unnamed.visible, unnamed.created_at],
    ]);
    for (const k of r.json.data) {
      expect(k.scope).to.deep.equal({ kind: 'toolkit', toolkit: 'realtime' });
      expect(k.toolkits).to.deep.equal(['realtime']);
      expect(k.imported_from).to.equal('realtime');
      expect(k).to.not.have.property('creator');
    }
    for (const r_ of PUBLIC_ROUTES.filter((x) => x.keyed && x.toolkit === 'realtime')) {
      expect(await edgeCheck(p.product_id, unnamed.key, r_)).to.equal('ok');
    }
    expect(await edgeCheck(p.product_id, named.key, route('mail', 'POST', '/emails'))).to.equal(
      'public_key_scope',
    );
    expect(await edgeCheck(p.product_id, deleted.key, route('realtime', 'POST', '/messages'))).to.equal(
      'public_key_invalid',
    );
    // Imported keys reach the production edge only (the toolkit keys had no environment).
    expect(
      await edgeCheck(p.product_id, unnamed.key, route('realtime', 'POST', '/messages'), 'development'),
    ).to.equal('public_key_invalid');
  });

  it('refuses area keys (mail, realtime) with 401 restricted_api_key, importing nothing', async () => {
    const p = await suite.t.newProduct('import-area');
    const mail = await mailKey(p.owner_token, { name: 'm', scope: 'full_access' });
    const realtime = await realtimeKey(p.owner_token, { name: 'r' });
    for (const [credential, toolkit] of [
      [mail.key, 'mail'],
      [realtime.key, 'realtime'],
      [mail.key, 'realtime'],
    ] as const) {
      const r = await importKeys(credential, toolkit);
      expect(r.status, `${credential.slice(0, 4)} importing ${toolkit}`).to.equal(401);
      expect((r.json as unknown as { error: { code: string } }).error.code).to.equal('restricted_api_key');
    }
    expect(await listKeys(p.owner_token)).to.deep.equal([]);
  });

  it('imports nothing twice; a later import adds only keys created since', async () => {
    const p = await suite.t.newProduct('import-again');
    await mailKey(p.owner_token, { name: 'first', scope: 'full_access' });
    expect((await importKeys(p.owner_token, 'mail')).json.data).to.have.length(1);
    const again = await importKeys(p.owner_token, 'mail');
    expect(again.status).to.equal(200);
    expect(again.json).to.deep.equal({ data: [] });

    // Even a revoked import is not imported again: revoking stays permanent.
    const [first] = await listKeys(p.owner_token);
    expect((await suite.t.call('POST', `${KEYS}/${first!.id}/revoke`, p.owner_token)).status).to.equal(200);
    await mailKey(p.owner_token, { name: 'second', scope: 'full_access' });
    const later = await importKeys(p.owner_token, 'mail');
    expect(later.json.data.map((k) => k.name)).to.deep.equal(['second']);
    const listed = await listKeys(p.owner_token);
    expect(listed.map((k) => [k.name, k.status])).to.deep.equal([
      ['second', 'active'],
      ['first', 'revoked'],
    ]);
  });

  it('copies each key once when imports race', async () => {
    const p = await suite.t.newProduct('import-race');
    for (let i = 0; i < 5; i++) await realtimeKey(p.owner_token, { name: `r${i}` });
    const results = await Promise.all([1, 2, 3, 4].map(() => importKeys(p.owner_token, 'realtime')));
    expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
    expect(results.flatMap((r) => r.json.data)).to.have.length(5);
    expect(await listKeys(p.owner_token)).to.have.length(5);
  });

  it('keeps two records: revoking the public key leaves the mail key working, and vice versa', async () => {
    const p = await suite.t.newProduct('import-two');
    const a = await mailKey(p.owner_token, { name: 'a', scope: 'full_access' });
    const b = await mailKey(p.owner_token, { name: 'b', scope: 'full_access' });
    const imported = new Map((await importKeys(p.owner_token, 'mail')).json.data.map((k) => [k.name, k]));

    // Revoke a's public copy: the public edge closes for a, the mail API does not.
    expect(
      (await suite.t.call('POST', `${KEYS}/${imported.get('a')!.id}/revoke`, p.owner_token)).status,
    ).to.equal(200);
    expect((await suite.t.call('GET', '/mail/api-keys', a.key)).status).to.equal(200);
    const revokedLongAgo = await createPostgresPublicKeyRepository(suite.t.db).snapshotKeys(
      'production',
      new Date(),
    );
    expect(revokedLongAgo.map((k) => k.hash)).to.not.include(sha256Hex(a.key));

    // Delete b from the mail toolkit: the mail API closes for b, the public edge does not.
    expect((await suite.t.call('DELETE', `/mail/api-keys/${b.id}`, p.owner_token)).status).to.equal(204);
    const refused = await suite.t.call('GET', '/mail/api-keys', b.key);
    expect(refused.status).to.equal(401);
    expect(refused.json.error.code).to.equal('invalid_token');
    expect(await edgeCheck(p.product_id, b.key, route('mail', 'POST', '/emails'))).to.equal('ok');
    const listed = await listKeys(p.owner_token);
    expect(listed.map((k) => [k.name, k.status])).to.deep.equal([
      ['b', 'active'],
      ['a', 'revoked'],
    ]);
  });

  it('refuses an unknown toolkit', async () => {
    const p = await suite.t.newProduct('import-bad');
    for (const body of [{ toolkit: 'chat' }, {}, { toolkit: 'mail', environment: 'development' }]) {
      const r = await suite.t.call('POST', IMPORT, p.owner_token, body);
      expect(r.status, JSON.stringify(body)).to.equal(400);
      expect(r.json.error.code).to.equal('validation_error');
    }
  });
});
