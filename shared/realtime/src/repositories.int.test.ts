import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import { createPostgresNamespaceRepository } from './namespace-repository.postgres.ts';

describe('realtime repositories (PostgreSQL)', () => {
  const config = testConfig();
  let db: Db;
  let productId: string;
  const policy = { presence: true, clientEvents: false, historyWindowSeconds: 60, archiveDays: 0 };

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, createLogger({ name: 't', level: 'silent' }));
    productId = (await bootstrapProduct(db, { name: uniqueName('rt') })).product_id;
  });
  after(() => db.destroy());

  it('creates, replaces, lists in pages, reads policies and deletes namespaces', async () => {
    const repo = createPostgresNamespaceRepository(db);
    expect((await repo.put(productId, 'chat', policy)).created).to.equal(true);
    const replaced = await repo.put(productId, 'chat', { ...policy, clientEvents: true });
    expect(replaced.created).to.equal(false);
    expect(replaced.namespace.clientEvents).to.equal(true);
    await repo.put(productId, 'news', policy);
    expect((await repo.list(productId, { limit: 1 })).map((n) => n.name)).to.deep.equal(['chat']);
    expect((await repo.list(productId, { limit: 5, after: 'chat' })).map((n) => n.name)).to.deep.equal([
      'news',
    ]);
    const policies = await repo.policies(productId, ['chat', 'missing']);
    expect([...policies.keys()]).to.deep.equal(['chat']);
    expect(await repo.delete(productId, 'news')).to.equal(true);
    expect(await repo.delete(productId, 'news')).to.equal(false);
    expect(await repo.get(productId, 'news')).to.equal(undefined);
  });

  it('refuses out-of-range policies in the database too', async () => {
    const repo = createPostgresNamespaceRepository(db);
    await repo.put(productId, 'edge', { ...policy, historyWindowSeconds: 2_592_000, archiveDays: 3650 });
    let failed = false;
    await repo
      .put(productId, 'edge', { ...policy, historyWindowSeconds: 2_592_001 })
      .catch(() => (failed = true));
    expect(failed).to.equal(true);
  });
});
