import { createLogger, sha256Hex } from '@lattice/core';
import { testDatabaseUrl, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import { createPostgresAuditLog } from './audit-log.postgres.ts';
import { addMember, bootstrapProduct } from './bootstrap.ts';
import { createDb, type Db } from './db.ts';
import { createPostgresMemberRepository } from './member-repository.postgres.ts';
import { createPostgresMemberTokenRepository } from './member-token-repository.postgres.ts';
import { migrateLatest } from './migrate.ts';
import { createPostgresProductRepository } from './product-repository.postgres.ts';

describe('bootstrapProduct and member tokens (PostgreSQL)', () => {
  let db: Db;

  before(async () => {
    db = createDb({ databaseUrl: testDatabaseUrl() });
    await migrateLatest(db, createLogger({ name: 'test', level: 'silent' }));
  });
  after(() => db.destroy());

  it('creates product, owner and an lmt_ owner token of which only the hash is stored', async () => {
    const name = uniqueName('boot');
    const result = await bootstrapProduct(db, { name });
    expect(Object.keys(result).sort()).to.deep.equal(['owner_token', 'product_id']);
    expect(result.owner_token).to.match(/^lmt_[0-9a-f]{32}$/);

    const product = await db('products').where({ id: result.product_id }).first();
    expect(product.name).to.equal(name);
    const members = await db('members').where({ product_id: result.product_id });
    expect(members.map((m) => m.role)).to.deep.equal(['owner']);

    const tokens = await db('member_tokens').where({ product_id: result.product_id });
    expect(tokens).to.have.length(1);
    const row = tokens[0];
    expect(row.member_id).to.equal(members[0].id);
    expect(row.token_hash).to.equal(sha256Hex(result.owner_token));
    expect(row.visible).to.equal(result.owner_token.slice(4, 12));
    const body = result.owner_token.slice(4);
    for (const [column, value] of Object.entries(row)) {
      expect(String(value), `column ${column} must not hold the secret`).to.not.include(body);
    }
  });

  it('adds the verified domain when given, normalised', async () => {
    const result = await bootstrapProduct(db, {
      name: uniqueName('dom'),
      verifiedDomain: 'Mail.Example.COM.',
    });
    const domains = await db('mail_domains').where({ product_id: result.product_id });
    expect(domains.map((d) => [d.name, d.status])).to.deep.equal([['mail.example.com', 'verified']]);
  });

  it('rejects an empty name or a bad domain and leaves nothing behind', async () => {
    const name = uniqueName('bad');
    let error: unknown;
    try {
      await bootstrapProduct(db, { name, verifiedDomain: 'not a domain' });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(RangeError);
    expect(await db('products').where({ name })).to.have.length(0);
    error = undefined;
    try {
      await bootstrapProduct(db, { name: '   ' });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(RangeError);
  });

  it('finds active tokens by hash with the member role, and not after revocation', async () => {
    const { product_id, owner_token } = await bootstrapProduct(db, { name: uniqueName('find') });
    const repo = createPostgresMemberTokenRepository(db);
    const found = await repo.findActiveByHash(sha256Hex(owner_token));
    expect(found?.productId).to.equal(product_id);
    expect(found?.role).to.equal('owner');
    expect(found?.revokedAt).to.equal(null);

    await repo.touchLastUsed(found!.id);
    const [listed] = await repo.listByProduct(product_id);
    expect(listed?.lastUsedAt).to.be.instanceOf(Date);

    const revoked = await repo.revoke(product_id, found!.id);
    expect(revoked?.revokedAt).to.be.instanceOf(Date);
    const again = await repo.revoke(product_id, found!.id);
    expect(again?.revokedAt?.getTime(), 'a second revoke keeps the first time').to.equal(
      revoked!.revokedAt!.getTime(),
    );
    expect(await repo.findActiveByHash(sha256Hex(owner_token))).to.equal(undefined);
  });

  it('adds a member of a role with a token, audited as the command line; refuses bad input', async () => {
    const { product_id } = await bootstrapProduct(db, { name: uniqueName('add') });
    const added = await addMember(db, { productId: product_id, role: 'admin' });
    expect(added.member_token).to.match(/^lmt_[0-9a-f]{32}$/);
    const found = await createPostgresMemberTokenRepository(db).findActiveByHash(
      sha256Hex(added.member_token),
    );
    expect([found?.role, found?.memberId]).to.deep.equal(['admin', added.member_id]);
    const entries = await createPostgresAuditLog(db).list(product_id, { limit: 5 });
    expect(entries.map((e) => [e.actor.kind, e.operation, e.target.id])).to.deep.equal([
      ['cli', 'organization_members_create', added.member_id],
      ['cli', 'organization_members_create', entries[1]!.target.id],
    ]);
    for (const input of [
      { productId: product_id, role: 'boss' },
      { productId: product_id, role: 'member', name: ' ' },
      { productId: '00000000-0000-4000-8000-000000000000', role: 'member' },
      { productId: 'not-an-id', role: 'member' },
    ]) {
      const error = await addMember(db, input).catch((e: unknown) => e);
      expect(error, JSON.stringify(input)).to.be.instanceOf(RangeError);
    }
    expect(await db('members').where({ product_id })).to.have.length(2);
  });

  it('a removed member’s tokens are no longer found, and removal is atomic with their revocation', async () => {
    const { product_id } = await bootstrapProduct(db, { name: uniqueName('rm') });
    const added = await addMember(db, { productId: product_id, role: 'member' });
    const members = createPostgresMemberRepository(db);
    expect(await members.remove(product_id, added.member_id)).to.equal(true);
    expect(await members.remove(product_id, added.member_id)).to.equal(false);
    expect(await members.findById(product_id, added.member_id)).to.equal(undefined);
    const tokens = await db('member_tokens').where({ member_id: added.member_id });
    expect(tokens.map((t) => t.revoked_at instanceof Date)).to.deep.equal([true]);
    const repo = createPostgresMemberTokenRepository(db);
    expect(await repo.findActiveByHash(sha256Hex(added.member_token))).to.equal(undefined);
  });

  it('treats malformed ids and hashes as not found instead of failing', async () => {
    const products = createPostgresProductRepository(db);
    const tokens = createPostgresMemberTokenRepository(db);
    expect(await products.findById("'; drop table products; --")).to.equal(undefined);
    expect(await tokens.findActiveByHash('zz')).to.equal(undefined);
    expect(await tokens.revoke('x', 'y')).to.equal(undefined);
    expect(await tokens.listByProduct('nope')).to.deep.equal([]);
  });
});
