// The actors role's retention jobs against real PostgreSQL: each run purges, counts what it
// deleted per table, and says on /metrics how old the oldest row is and whether it is behind.
import { createLogger } from '@lattice/core';
import { ManualClock, testConfig, testDatabaseUrl, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { retentionJobs } from './retention-jobs.ts';

const DAY_MS = 86_400_000;
const NOW = Date.parse('2026-11-29T12:00:00.000Z');

describe('retention jobs (actors role, PostgreSQL)', () => {
  let db: Db;
  before(async () => {
    db = createDb({ databaseUrl: testDatabaseUrl() });
    await migrateLatest(db, createLogger({ name: 'test', level: 'silent' }));
  });
  after(() => db.destroy());

  it('purges, counts rows per table, and reports the oldest age and whether the run fell behind', async () => {
    const { product_id: productId } = await bootstrapProduct(db, { name: uniqueName('retention-jobs') });
    await db.raw(
      `insert into mail_webhook_deliveries (id, endpoint_id, product_id, event_id, event_type, payload, status, last_attempt_at, created_at)
       select gen_random_uuid(), gen_random_uuid(), ?, gen_random_uuid(), 'e', '{}', 'succeeded', ts, ts
       from (select ?::timestamptz - i * interval '1 day' as ts from generate_series(1, 50) i) g`,
      [productId, new Date(NOW)],
    );
    const registry = new Registry();
    const jobs = retentionJobs({
      db,
      clock: new ManualClock(NOW),
      logger: createLogger({ name: 'test', level: 'silent' }),
      registry,
      settings: { ...testConfig().retention, purgeBatchSize: 10, purgeBudgetMs: 0 },
      productIds: [productId],
    });
    // One job: the purges one after another, never two at the database at once.
    expect(jobs.map((j) => j.name)).to.deep.equal(['retention']);
    const deliveries = jobs[0]!;
    const value = async (name: string) =>
      (await registry.getSingleMetric(name)!.get()).values.find(
        (v) => v.labels.table === 'mail_webhook_deliveries',
      )?.value;

    // Days 31 to 50 are past 30 days: 20 rows, two batches of 10 at a zero budget, then drained.
    await deliveries.run({} as never);
    expect(await value('lattice_retention_purged_rows_total')).to.equal(10);
    expect(await value('lattice_retention_behind')).to.equal(1);
    expect(await value('lattice_retention_oldest_row_age_seconds')).to.equal((40 * DAY_MS) / 1000);
    await deliveries.run({} as never);
    await deliveries.run({} as never);
    expect(await value('lattice_retention_purged_rows_total')).to.equal(20);
    expect(await value('lattice_retention_behind')).to.equal(0);
    expect(await value('lattice_retention_oldest_row_age_seconds')).to.equal((30 * DAY_MS) / 1000);
  });
});
