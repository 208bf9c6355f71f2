import { captureLogs, testDatabaseUrl, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import knex from 'knex';
import { createDb, type Db } from './db.ts';
import { migrateLatest } from './migrate.ts';

const ADMIN_URL = testDatabaseUrl();

function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

function capturingLogger() {
  const { logger, lines } = captureLogs({ name: 'migrate-test', level: 'info' });
  return { logger, messages: () => lines.map((l) => l.msg) };
}

describe('migrateLatest (PostgreSQL)', () => {
  // A fresh database per run, because the race worth testing only exists before the first migration.
  // Used unquoted in SQL, so `_` where uniqueName has `-`.
  const database = uniqueName('lattice_mig').replaceAll('-', '_');
  let admin: Db;
  const dbs: Db[] = [];

  before(async () => {
    admin = knex({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
    await admin.raw(`create database ${database}`);
  });

  after(async () => {
    await Promise.all(dbs.map((db) => db.destroy()));
    await admin.raw(`drop database if exists ${database} with (force)`);
    await admin.destroy();
  });

  it('applies every migration exactly once when several processes start at the same time', async () => {
    const runners = [1, 2, 3, 4].map(() => {
      const db = createDb({ databaseUrl: urlFor(database), poolMax: 3 });
      dbs.push(db);
      return { db, ...capturingLogger() };
    });
    const results = await Promise.all(runners.map((r) => migrateLatest(r.db, r.logger)));

    const appliedCounts = results.map((r) => r.applied.length).sort();
    expect(
      appliedCounts.slice(0, -1).every((n) => n === 0),
      'only one process applies',
    ).to.equal(true);
    expect(appliedCounts.at(-1)).to.be.greaterThan(0);

    const db = runners[0]!.db;
    const names = (await db('knex_migrations').select('name')).map((r: { name: string }) => r.name);
    expect(names).to.deep.equal([...new Set(names)]);
    expect(names).to.include('0001_initial');
    const locks = await db('knex_migrations_lock').select('*');
    expect(locks).to.have.length(1);
    expect(locks[0].is_locked).to.equal(0);

    const winner = runners.find((_, i) => results[i]!.applied.length > 0)!;
    expect(winner.messages()).to.include('migration 0001_initial: applied');
  });

  it('is a no-op on an up-to-date schema and says so', async () => {
    const db = createDb({ databaseUrl: urlFor(database) });
    dbs.push(db);
    const { logger, messages } = capturingLogger();
    const result = await migrateLatest(db, logger);
    expect(result.applied).to.deep.equal([]);
    expect(messages()).to.include('migrations: schema up to date');
  });

  it('recovers from a knex lock left set by a process that died mid-migration', async () => {
    const { logger, messages } = capturingLogger();
    const db = createDb({ databaseUrl: urlFor(database), logger });
    dbs.push(db);
    await db('knex_migrations_lock').update({ is_locked: 1 });
    await migrateLatest(db, logger);
    const [lock] = await db('knex_migrations_lock').select('is_locked');
    expect(lock.is_locked).to.equal(0);
    expect(messages()).to.include('knex migration lock was left set by a dead process; freeing it');
  });

  it('creates the tables with their constraints', async () => {
    const db = dbs[0]!;
    for (const table of ['products', 'members', 'member_tokens', 'mail_domains']) {
      expect(await db.schema.hasTable(table), table).to.equal(true);
    }
    const [product] = await db('products').insert({ id: crypto.randomUUID(), name: 'p' }).returning('id');
    const error = await db('members')
      .insert({ id: crypto.randomUUID(), product_id: product.id, name: 'x', role: 'root' })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error, 'role check constraint').to.have.property('code', '23514');
  });
});
