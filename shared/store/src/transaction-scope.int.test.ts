import { createLogger } from '@lattice/core';
import { testDatabaseUrl, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import { createDb, type Db } from './db.ts';
import { migrateLatest } from './migrate.ts';
import { createPostgresProductRepository } from './product-repository.postgres.ts';
import { createTransactionScope } from './transaction-scope.ts';

describe('transaction scope (PostgreSQL)', () => {
  let db: Db;
  before(async () => {
    db = createDb({ databaseUrl: testDatabaseUrl() });
    await migrateLatest(db, createLogger({ name: 'test', level: 'silent' }));
  });
  after(() => db.destroy());

  const named = (name: string) => db('products').where({ name });

  it('runs a repository built on scope.db in the run’s transaction: committed on success', async () => {
    const scope = createTransactionScope(db);
    const products = createPostgresProductRepository(scope.db);
    const name = uniqueName('commit');
    let seenOutside: unknown[] = ['not read'];
    await scope.run(async () => {
      await products.create({ name });
      // Another connection does not see it before the commit.
      seenOutside = await named(name);
      expect(scope.active()).to.equal(true);
    });
    expect(seenOutside).to.deep.equal([]);
    expect(await named(name)).to.have.length(1);
    expect(scope.active()).to.equal(false);
  });

  it('rolls everything back when the run throws, nested runs included', async () => {
    const scope = createTransactionScope(db);
    const products = createPostgresProductRepository(scope.db);
    const [a, b] = [uniqueName('rb-a'), uniqueName('rb-b')];
    const failure = await scope
      .run(async () => {
        await products.create({ name: a });
        await scope.run(async () => products.create({ name: b }));
        throw new Error('fault after both writes');
      })
      .catch((e: unknown) => e);
    expect((failure as Error).message).to.equal('fault after both writes');
    expect(await named(a)).to.deep.equal([]);
    expect(await named(b)).to.deep.equal([]);
  });

  it('runs afterCommit callbacks after the commit only, and at once outside a run', async () => {
    const scope = createTransactionScope(db);
    const products = createPostgresProductRepository(scope.db);
    const seen: string[] = [];
    const name = uniqueName('after');
    let read: Promise<unknown> | undefined;
    await scope.run(async () => {
      await products.create({ name });
      scope.afterCommit(() => {
        seen.push('callback');
        // The callback finds the committed row from any connection.
        read = named(name).then((rows) => seen.push(`rows ${rows.length}`));
      });
      seen.push('end of run');
    });
    await read;
    expect(seen).to.deep.equal(['end of run', 'callback', 'rows 1']);

    const rolledBack: string[] = [];
    await scope
      .run(async () => {
        scope.afterCommit(() => rolledBack.push('must not run'));
        throw new Error('rollback');
      })
      .catch(() => undefined);
    expect(rolledBack).to.deep.equal([]);

    const outside: string[] = [];
    scope.afterCommit(() => outside.push('now'));
    expect(outside).to.deep.equal(['now']);
  });

  it('uses the pool outside a run, including knex helpers (fn, raw)', async () => {
    const scope = createTransactionScope(db);
    const [row] = (await scope.db.raw('select 1 as one')).rows as Array<{ one: number }>;
    expect(row?.one).to.equal(1);
    const [now] = (await scope.db.select({ at: scope.db.fn.now() })) as Array<{ at: Date }>;
    expect(now?.at).to.be.instanceOf(Date);
  });
});
