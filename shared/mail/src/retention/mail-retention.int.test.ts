// The mail toolkit's retention purges against real PostgreSQL, over rows generated in SQL around
// each cutoff: exactly what is past retention goes (both sides of each bound), nothing else; runs
// take batches until drained, one batch per run at a zero budget; rows held by a transaction are
// skipped, not waited for.
import { createLogger } from '@lattice/core';
import { ManualClock, testDatabaseUrl, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import {
  createEmailPurge,
  createIdempotencyKeyPurge,
  createWebhookDeliveryPurge,
  type RetentionPurge,
} from './mail-retention.ts';

const DAY_MS = 86_400_000;
const NOW = Date.parse('2026-11-29T12:00:00.000Z');

describe('mail retention purges (PostgreSQL)', function () {
  this.timeout(120_000);
  let db: Db;
  before(async () => {
    db = createDb({ databaseUrl: testDatabaseUrl() });
    await migrateLatest(db, createLogger({ name: 'test', level: 'silent' }));
  });
  after(() => db.destroy());

  const product = async () => (await bootstrapProduct(db, { name: uniqueName('retention') })).product_id;
  const count = async (sql: string, params: unknown[]) =>
    Number(((await db.raw(sql, params as never)) as { rows: Array<{ n: string }> }).rows[0]!.n);

  /** Runs until a run drains; every run takes at most one batch when the budget is 0. */
  async function drain(purge: RetentionPurge): Promise<{ runs: number; deleted: Record<string, number> }> {
    const deleted: Record<string, number> = {};
    for (let runs = 1; ; runs++) {
      const run = await purge.runOnce();
      for (const [table, n] of Object.entries(run.deletedByTable)) deleted[table] = (deleted[table] ?? 0) + n;
      if (run.drained) return { runs, deleted };
      expect(runs).to.be.below(1000);
    }
  }

  it('webhook deliveries: deletes those finished more than 30 days ago, keeps pending ones and recent attempts', async () => {
    const productId = await product();
    const cutoff = new Date(NOW - 30 * DAY_MS);
    // 20 000 rows over 60 days: every tenth pending, every tenth failed without an attempt, the
    // rest succeeded up to two days after they were made.
    await db.raw(
      `insert into mail_webhook_deliveries (id, endpoint_id, product_id, event_id, event_type, payload, status, attempts, last_attempt_at, created_at)
       select gen_random_uuid(), gen_random_uuid(), ?, gen_random_uuid(), 'email.delivered', '{}',
              case when i % 10 = 0 then 'pending' when i % 10 = 1 then 'failed' else 'succeeded' end,
              case when i % 10 in (0, 1) then 0 else 1 end,
              case when i % 10 in (0, 1) then null else ts + (i % 3) * interval '1 day' end,
              ts
       from (select i, ?::timestamptz - (i % 60) * interval '1 day' - (i % 997) * interval '1 second' as ts
             from generate_series(1, 20000) i) g`,
      [productId, new Date(NOW)],
    );
    // Both sides of the bound, and the rows that are old but not done with.
    await db.raw(
      `insert into mail_webhook_deliveries (id, endpoint_id, product_id, event_id, event_type, payload, status, last_attempt_at, created_at) values
        (gen_random_uuid(), gen_random_uuid(), ?, gen_random_uuid(), 'edge', '{}', 'succeeded', ?::timestamptz - interval '1 millisecond', ?::timestamptz - interval '1 day'),
        (gen_random_uuid(), gen_random_uuid(), ?, gen_random_uuid(), 'edge', '{}', 'succeeded', ?, ?::timestamptz - interval '1 day'),
        (gen_random_uuid(), gen_random_uuid(), ?, gen_random_uuid(), 'edge', '{}', 'pending', null, ?::timestamptz - interval '300 days'),
        (gen_random_uuid(), gen_random_uuid(), ?, gen_random_uuid(), 'edge', '{}', 'failed', ?::timestamptz + interval '1 day', ?::timestamptz - interval '300 days')`,
      [productId, cutoff, cutoff, productId, cutoff, cutoff, productId, cutoff, productId, cutoff, cutoff],
    );
    const finishedBefore = (op: string) =>
      count(
        `select count(*) as n from mail_webhook_deliveries
         where product_id = ? and status in ('succeeded', 'failed') and greatest(created_at, last_attempt_at) ${op} ?`,
        [productId, cutoff],
      );
    const total = await count('select count(*) as n from mail_webhook_deliveries where product_id = ?', [
      productId,
    ]);
    const old = await count(
      'select count(*) as n from mail_webhook_deliveries where product_id = ? and created_at < ?',
      [productId, cutoff],
    );
    const past = await finishedBefore('<');
    expect(past).to.be.within(5000, 12000);

    const purge = createWebhookDeliveryPurge({
      db,
      clock: new ManualClock(NOW),
      batchSize: 1000,
      budgetMs: 0,
      retentionDays: 30,
      productIds: [productId],
    });
    const { runs, deleted } = await drain(purge);
    expect(deleted).to.deep.equal({ mail_webhook_deliveries: past });
    // One page a run at a zero budget, each run going on from the last: every row older than the
    // cutoff is read once, then one short page ends the pass.
    expect(runs).to.be.within(Math.ceil(past / 1000), Math.floor(old / 1000) + 1);
    expect(await finishedBefore('<')).to.equal(0);
    const left = await count('select count(*) as n from mail_webhook_deliveries where product_id = ?', [
      productId,
    ]);
    expect(left).to.equal(total - past);
    // The row finished 1 ms before the cutoff went; the one finished at it, the old pending one
    // and the old one attempted recently stayed.
    const edges = await db('mail_webhook_deliveries')
      .where({ product_id: productId, event_type: 'edge' })
      .select('status', 'last_attempt_at');
    expect(edges.map((e) => e.status).sort()).to.deep.equal(['failed', 'pending', 'succeeded']);
    expect((await purge.runOnce()).deleted).to.equal(0);
    expect(await purge.oldestAgeMs(), 'the old pending row, 300 days before the cutoff').to.equal(
      330 * DAY_MS,
    );
  });

  it('emails and their events: 30 days after the last event, once sent or suppressed; unmatched events by receipt', async () => {
    const productId = await product();
    const cutoff = new Date(NOW - 30 * DAY_MS);
    // 5 000 emails over 60 days, each with two events; every fifth still being sent, every
    // seventh with an event since the cutoff (an open a month later).
    await db.raw(
      `insert into mail_emails (id, product_id, environment, from_header, to_header, to_address, subject, message_id, status, send_state, created_at, last_event_at)
       select gen_random_uuid(), ?, 'production', 'a@x.test', 'b@y.test', 'b@y.test', 's', 'm' || i,
              case when i % 5 = 0 then 'queued' else 'delivered' end,
              case when i % 5 = 0 then 'deferred' else 'done' end,
              ts,
              case when i % 7 = 0 then ?::timestamptz - interval '1 hour' else ts + interval '10 minutes' end
       from (select i, ?::timestamptz - (i % 60) * interval '1 day' as ts from generate_series(1, 5000) i) g`,
      [productId, new Date(NOW), new Date(NOW)],
    );
    await db.raw(
      `insert into mail_email_events (event_id, product_id, email_id, type, recipient, occurred_at, recorded_at)
       select gen_random_uuid(), product_id, id, t, 'b@y.test', created_at, created_at
       from mail_emails, unnest(array['delivered', 'bounced']) t where product_id = ?`,
      [productId],
    );
    // Reports that matched no email, received on both sides of the cutoff.
    await db.raw(
      `insert into mail_email_events (event_id, product_id, email_id, type, recipient, occurred_at, recorded_at) values
        (gen_random_uuid(), ?, null, 'complained', 'z@y.test', ?, ?::timestamptz - interval '1 millisecond'),
        (gen_random_uuid(), ?, null, 'complained', 'z@y.test', ?, ?)`,
      [productId, cutoff, cutoff, productId, cutoff, cutoff],
    );
    const doomed = await count(
      `select count(*) as n from mail_emails where product_id = ? and send_state = 'done' and greatest(created_at, last_event_at) < ?`,
      [productId, cutoff],
    );
    expect(doomed).to.be.within(1000, 3000);
    const emailsBefore = await count('select count(*) as n from mail_emails where product_id = ?', [
      productId,
    ]);

    const purge = createEmailPurge({
      db,
      clock: new ManualClock(NOW),
      batchSize: 700,
      // A clock that stands still: a budget of 1 ms is never spent, so one run purges both phases.
      budgetMs: 1,
      retentionDays: 30,
      productIds: [productId],
    });
    const { deleted } = await drain(purge);
    expect(deleted).to.deep.equal({ mail_emails: doomed, mail_email_events: 2 * doomed + 1 });
    expect(await count('select count(*) as n from mail_emails where product_id = ?', [productId])).to.equal(
      emailsBefore - doomed,
    );
    // No event is left without its email, and every kept email kept both events.
    expect(
      await count(
        `select count(*) as n from mail_email_events e where product_id = ? and email_id is not null
         and not exists (select 1 from mail_emails m where m.id = e.email_id)`,
        [productId],
      ),
    ).to.equal(0);
    expect(
      await count('select count(*) as n from mail_email_events where product_id = ?', [productId]),
    ).to.equal(2 * (emailsBefore - doomed) + 1);
    const kept = await db('mail_email_events')
      .where({ product_id: productId })
      .whereNull('email_id')
      .select('recorded_at');
    expect(kept.map((k) => (k.recorded_at as Date).getTime())).to.deep.equal([cutoff.getTime()]);
  });

  it('idempotency keys: past their window only', async () => {
    const productId = await product();
    await db.raw(
      `insert into mail_idempotency_keys (product_id, key_hash, body_hash, email_id, expires_at)
       select ?, md5(i::text) || md5((i + 1)::text), md5(i::text) || md5(i::text), gen_random_uuid(), ?::timestamptz + (i - 1500) * interval '1 second'
       from generate_series(1, 3000) i`,
      [productId, new Date(NOW)],
    );
    const purge = createIdempotencyKeyPurge({
      db,
      clock: new ManualClock(NOW),
      batchSize: 400,
      budgetMs: 0,
      productIds: [productId],
    });
    const { deleted } = await drain(purge);
    // expires_at <= now: i = 1 .. 1500.
    expect(deleted).to.deep.equal({ mail_idempotency_keys: 1500 });
    expect(
      await count('select min(expires_at) > ? as n from mail_idempotency_keys where product_id = ?', [
        new Date(NOW),
        productId,
      ]),
    ).to.equal(1);
  });

  it('skips rows another transaction holds instead of waiting for them', async () => {
    const productId = await product();
    await db.raw(
      `insert into mail_webhook_deliveries (id, endpoint_id, product_id, event_id, event_type, payload, status, last_attempt_at, created_at)
       select gen_random_uuid(), gen_random_uuid(), ?, gen_random_uuid(), 'e', '{}', 'succeeded', ts, ts
       from (select ?::timestamptz - interval '40 days' - i * interval '1 second' as ts from generate_series(1, 10) i) g`,
      [productId, new Date(NOW)],
    );
    const purge = createWebhookDeliveryPurge({
      db,
      clock: new ManualClock(NOW),
      batchSize: 100,
      budgetMs: 1000,
      retentionDays: 30,
      productIds: [productId],
    });
    const trx = await db.transaction();
    try {
      // A delivery's outcome being written: its row is locked.
      const [held] = await trx('mail_webhook_deliveries')
        .where({ product_id: productId })
        .orderBy('created_at')
        .limit(1)
        .forUpdate()
        .select('id');
      const run = await purge.runOnce();
      expect(run.deleted).to.equal(9);
      expect(await trx('mail_webhook_deliveries').where({ id: held.id }).first()).to.not.equal(undefined);
    } finally {
      await trx.rollback();
    }
    expect((await purge.runOnce()).deleted).to.equal(1);
  });
});
