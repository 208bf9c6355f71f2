// The PostgreSQL domain store against a real database: keys sealed and opened, pages, tracking,
// verification results, the sending path's reads, keys made on first read for domains that
// `lattice bootstrap` marked verified, and deletes that would unlock a mail key refused.
import { createPublicKey } from 'node:crypto';
import { createLogger, newId, parseSecretKeys, SecretKeyError, sha256Hex } from '@lattice/core';
import { ManualClock, testConfig, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import { createPostgresDomainStore } from './domain-store.postgres.ts';
import type { DomainStore } from './domain-store.ts';

// The suite's keyring: a running platform refuses to start on a database holding values it cannot open.
const keyring = parseSecretKeys(testConfig().secretKeys);
const NOV_24 = Date.UTC(2026, 10, 24, 12);

describe('domain store (PostgreSQL)', function () {
  this.timeout(30_000);
  const config = testConfig();
  let db: Db;
  let store: DomainStore;

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, createLogger({ name: 't', level: 'silent' }));
    store = createPostgresDomainStore(db, { keyring, clock: new ManualClock(NOV_24) });
  });
  after(() => db.destroy());

  const product = async (verifiedDomain?: string) =>
    (await bootstrapProduct(db, { name: uniqueName('dom'), ...(verifiedDomain ? { verifiedDomain } : {}) }))
      .product_id;
  const create = (productId: string, name: string) =>
    store.create(productId, { name, openTracking: false, clickTracking: false });
  const publicKeyOf = (pem: string) =>
    createPublicKey(pem).export({ type: 'spki', format: 'der' }).toString('base64');

  it('creates a pending domain whose private key is stored sealed and opens to the published public key', async () => {
    const p = await product();
    const domain = await store.create(p, {
      name: 'mail.example.org',
      openTracking: true,
      clickTracking: false,
    });
    expect(domain).to.include({
      productId: p,
      name: 'mail.example.org',
      status: 'pending',
      openTracking: true,
      clickTracking: false,
      dkimSelector: 'l20261124',
      verifiedAt: null,
    });
    const row = await db('mail_domains').where({ id: domain!.id }).first();
    expect(row.dkim_private_key_sealed.startsWith(`${keyring.currentKid}.`)).to.equal(true);
    expect(row.dkim_private_key_sealed).to.not.include('PRIVATE KEY');
    const key = await store.signingKey(p, domain!.id);
    expect(key).to.deep.include({ domainName: 'mail.example.org', keySelector: 'l20261124' });
    expect(key!.privateKey).to.match(/^-----BEGIN PRIVATE KEY-----/);
    expect(publicKeyOf(key!.privateKey)).to.equal(domain!.dkimPublicKey);
  });

  it('refuses a second domain of the same name on a product, not on another product', async () => {
    const [p, q] = [await product(), await product()];
    expect(await create(p, 'dup.example.org')).to.not.equal(undefined);
    expect(await create(p, 'dup.example.org')).to.equal(undefined);
    expect(await create(q, 'dup.example.org')).to.not.equal(undefined);
    expect(await db('mail_domains').where({ product_id: p })).to.have.length(1);
  });

  it('lists newest first in pages that continue after the cursor, and only the product’s own', async () => {
    const [p, q] = [await product(), await product()];
    const made = [];
    for (const name of ['a.example.org', 'b.example.org', 'c.example.org'])
      made.push((await create(p, name))!);
    await create(q, 'other.example.org');
    const first = await store.list(p, { limit: 2 });
    expect(first.map((d) => d.name)).to.deep.equal(['c.example.org', 'b.example.org']);
    const rest = await store.list(p, { limit: 2, afterId: first[1]!.id });
    expect(rest.map((d) => d.name)).to.deep.equal(['a.example.org']);
    expect(await store.list(p, { limit: 2, afterId: made[0]!.id })).to.deep.equal([]);
    expect(await store.list(p, { limit: 10, afterId: newId() })).to.deep.equal([]);
    expect(await store.list(p, { limit: 10, afterId: 'not-a-uuid' })).to.deep.equal([]);
  });

  it('gets a domain of the product only: another product’s, unknown and malformed ids read as none', async () => {
    const [p, q] = [await product(), await product()];
    const domain = (await create(p, 'get.example.org'))!;
    expect((await store.get(p, domain.id))?.name).to.equal('get.example.org');
    expect(await store.get(q, domain.id)).to.equal(undefined);
    expect(await store.get(p, newId())).to.equal(undefined);
    expect(await store.get(p, 'x')).to.equal(undefined);
    expect(await store.signingKey(q, domain.id)).to.equal(undefined);
    expect(await store.updateTracking(q, domain.id, { openTracking: true })).to.equal(undefined);
    expect(await store.recordVerification(q, domain.id, true)).to.equal(undefined);
  });

  it('changes only the tracking switch given', async () => {
    const p = await product();
    const domain = (await create(p, 'track.example.org'))!;
    const opened = await store.updateTracking(p, domain.id, { openTracking: true });
    expect(opened).to.include({ openTracking: true, clickTracking: false });
    const clicked = await store.updateTracking(p, domain.id, { clickTracking: true });
    expect(clicked).to.include({ openTracking: true, clickTracking: true });
    expect(await store.updateTracking(p, domain.id, { openTracking: false })).to.include({
      openTracking: false,
      clickTracking: true,
    });
  });

  it('records verification: verified since the first success, pending again on a failure', async () => {
    const p = await product();
    const domain = (await create(p, 'verify.example.org'))!;
    const verified = (await store.recordVerification(p, domain.id, true))!;
    expect(verified.status).to.equal('verified');
    expect(verified.verifiedAt).to.be.instanceOf(Date);
    const again = (await store.recordVerification(p, domain.id, true))!;
    expect(again.verifiedAt!.getTime()).to.equal(verified.verifiedAt!.getTime());
    const failed = (await store.recordVerification(p, domain.id, false))!;
    expect(failed).to.include({ status: 'pending', verifiedAt: null });
    expect(failed.dkimSelector).to.equal(domain.dkimSelector);
  });

  it('answers the sending path’s name lookup for verified domains only, by exact name', async () => {
    const [p, q] = [await product(), await product()];
    const domain = (await store.create(p, {
      name: 'send.example.org',
      openTracking: true,
      clickTracking: true,
    }))!;
    expect(await store.verifiedDomainByName(p, 'send.example.org')).to.equal(undefined);
    await store.recordVerification(p, domain.id, true);
    const expected = { id: domain.id, name: 'send.example.org', openTracking: true, clickTracking: true };
    expect(await store.verifiedDomainByName(p, 'send.example.org')).to.deep.equal(expected);
    expect(await store.verifiedDomainByName(p, 'Send.Example.ORG.')).to.deep.equal(expected);
    expect(await store.verifiedDomainByName(p, 'x.send.example.org')).to.equal(undefined);
    expect(await store.verifiedDomainByName(p, 'example.org')).to.equal(undefined);
    expect(await store.verifiedDomainByName(q, 'send.example.org')).to.equal(undefined);
  });

  it('keeps opened keys per domain and selector; a tampered seal does not open', async () => {
    const p = await product();
    const domain = (await create(p, 'cache.example.org'))!;
    const opened = (await store.signingKey(p, domain.id))!;
    const sealed = (await db('mail_domains').where({ id: domain.id }).first())
      .dkim_private_key_sealed as string;
    const [kid, iv, body, tag] = sealed.split('.');
    const tampered = [kid, iv, `${body!.slice(0, -2)}${body!.endsWith('AA') ? 'BB' : 'AA'}`, tag].join('.');
    await db('mail_domains').where({ id: domain.id }).update({ dkim_private_key_sealed: tampered });
    expect(await store.signingKey(p, domain.id)).to.deep.equal(opened);
    const fresh = createPostgresDomainStore(db, { keyring });
    await fresh.signingKey(p, domain.id).then(
      () => expect.fail('a tampered seal opened'),
      (err: unknown) => expect(err).to.be.instanceOf(SecretKeyError),
    );
  });

  it('gives a domain made verified by bootstrap a key on first read, one key however many read at once', async () => {
    const p = await product('boot.example.org');
    const before = await db('mail_domains').where({ product_id: p }).first();
    expect(before.dkim_selector).to.equal(null);
    // Two stores stand for two processes reading the new domain at the same time.
    const other = createPostgresDomainStore(db, { keyring, clock: new ManualClock(NOV_24) });
    const [a, b, c, key] = await Promise.all([
      store.get(p, before.id),
      other.get(p, before.id),
      other.list(p, { limit: 10 }),
      store.signingKey(p, before.id),
    ]);
    expect(a!.dkimPublicKey).to.be.a('string');
    expect(b!.dkimPublicKey).to.equal(a!.dkimPublicKey);
    expect(c[0]!.dkimPublicKey).to.equal(a!.dkimPublicKey);
    expect(publicKeyOf(key!.privateKey)).to.equal(a!.dkimPublicKey);
    expect(a).to.include({ status: 'verified', dkimSelector: 'l20261124' });
    expect(a!.verifiedAt!.getTime()).to.equal(before.created_at.getTime());
    expect(await store.ensureKeys(p)).to.equal(0);
  });

  it('ensureKeys keys every domain of the product that has none', async () => {
    const p = await product('ensure.example.org');
    await db('mail_domains').insert({
      id: newId(),
      product_id: p,
      name: 'second.example.org',
      status: 'pending',
    });
    expect(await store.ensureKeys(p)).to.equal(2);
    const rows = await db('mail_domains').where({ product_id: p }).whereNull('dkim_selector');
    expect(rows).to.deep.equal([]);
    expect(await store.ensureKeys(p)).to.equal(0);
  });

  it('deletes a domain unless an active mail key is locked to it; a deleted key does not hold it', async () => {
    const [p, q] = [await product(), await product()];
    const domain = (await create(p, 'del.example.org'))!;
    const keyId = newId();
    await db('mail_api_keys').insert({
      id: keyId,
      product_id: p,
      name: 'locked',
      scope: 'full_access',
      domain_id: domain.id,
      key_hash: sha256Hex(keyId),
      visible: '00000000',
    });
    expect(await store.delete(q, domain.id)).to.equal('not_found');
    expect(await store.delete(p, domain.id)).to.equal('in_use');
    expect((await db('mail_api_keys').where({ id: keyId }).first()).domain_id).to.equal(domain.id);
    await db('mail_api_keys').where({ id: keyId }).update({ deleted_at: db.fn.now() });
    expect(await store.delete(p, domain.id)).to.equal('deleted');
    expect(await store.get(p, domain.id)).to.equal(undefined);
    expect(await store.signingKey(p, domain.id)).to.equal(undefined);
    expect(await store.delete(p, domain.id)).to.equal('not_found');
    expect(await store.delete(p, 'nope')).to.equal('not_found');
  });
});
