// Retention of the mail toolkit's tables (docs/operations.md "Retention"):
//   webhook deliveries   30 days (WEBHOOK_DELIVERY_RETENTION_DAYS) after their last attempt, once
//                        they are no longer pending
//   emails and events    30 days (MAIL_RETENTION_DAYS) after the email's last event (or its
//                        creation), once it is sent or suppressed; an event that matched no email
//                        30 days after it was received. The suppression list is kept.
//   idempotency keys     once past their window
// Each purge deletes in batches (one short statement each, rows picked through an index on a
// column written once) within a time budget per run (batched-delete.ts). Rows are picked FOR
// UPDATE SKIP LOCKED: a row a send, an event or a delivery holds is left for a later run, so a
// purge never makes them wait, and several actors hosts purging at once split the work.
import type { Clock } from '@lattice/core';
import { type BatchedRun, type DbExecutor, runBatches } from '@lattice/store';
import type { Knex } from 'knex';

const DAY_MS = 86_400_000;

export interface RetentionPurgeOptions {
  db: DbExecutor;
  clock: Clock;
  /** Rows per statement. */
  batchSize: number;
  /** A run stops starting batches once this much time has passed. */
  budgetMs: number;
  /** Purge only these products' rows (tests sharing a database); default every product. */
  productIds?: readonly string[];
}

export interface PurgeRun extends BatchedRun {
  /** Rows deleted per table (an email's events are deleted with it). */
  deletedByTable: Record<string, number>;
}

export interface RetentionPurge {
  /** What `lattice_retention_*{table}` calls it: the table whose age the purge keeps. */
  readonly table: string;
  runOnce(): Promise<PurgeRun>;
  /** How old the oldest row of the table is (by the column its index orders), 0 when empty. */
  oldestAgeMs(): Promise<number>;
}

type Params = Knex.RawBinding[];

function productFilter(opts: RetentionPurgeOptions, column = 'product_id'): { sql: string; params: Params } {
  return opts.productIds
    ? { sql: `and ${column} = any(?)`, params: [[...opts.productIds] as unknown as Knex.RawBinding] }
    : { sql: '', params: [] };
}

/** How old the oldest `column` of `table` is (the products filtered to), 0 when empty. */
function oldestOf(opts: RetentionPurgeOptions, table: string, column: string): () => Promise<number> {
  const only = productFilter(opts);
  return async () => {
    const { rows } = (await opts.db.raw(
      `select min(${column}) as at from ${table} where true ${only.sql}`,
      only.params,
    )) as {
      rows: Array<{ at: Date | null }>;
    };
    const at = rows[0]?.at;
    return at ? Math.max(0, opts.clock.nowMs() - at.getTime()) : 0;
  };
}

/** A run of one delete statement that removes at most a batch each time, within the budget. */
function runStatement(opts: RetentionPurgeOptions, sql: string, params: Params, budgetMs = opts.budgetMs) {
  return runBatches({
    clock: opts.clock,
    budgetMs,
    batchSize: opts.batchSize,
    batch: async () =>
      ((await opts.db.raw(sql, [...params, opts.batchSize])) as { rowCount: number | null }).rowCount ?? 0,
  });
}

export function createWebhookDeliveryPurge(
  opts: RetentionPurgeOptions & { retentionDays: number },
): RetentionPurge {
  const table = 'mail_webhook_deliveries';
  const only = productFilter(opts);
  return {
    table,
    async runOnce() {
      const cutoff = new Date(opts.clock.nowMs() - opts.retentionDays * DAY_MS);
      const run = await runStatement(
        opts,
        `with doomed as (
           select id from mail_webhook_deliveries
           where created_at < ? and status <> 'pending' and coalesce(last_attempt_at, created_at) < ? ${only.sql}
           order by created_at
           limit ?
           for update skip locked)
         delete from mail_webhook_deliveries d using doomed where d.id = doomed.id`,
        [cutoff, cutoff, ...only.params],
      );
      return { ...run, deletedByTable: { [table]: run.deleted } };
    },
    oldestAgeMs: oldestOf(opts, table, 'created_at'),
  };
}

export function createEmailPurge(opts: RetentionPurgeOptions & { retentionDays: number }): RetentionPurge {
  const table = 'mail_emails';
  const only = productFilter(opts);
  return {
    table,
    async runOnce() {
      const cutoff = new Date(opts.clock.nowMs() - opts.retentionDays * DAY_MS);
      let events = 0;
      let unmatched = 0;
      const run = await runBatches({
        clock: opts.clock,
        budgetMs: opts.budgetMs,
        batchSize: opts.batchSize,
        batch: async () => {
          const { rows } = (await opts.db.raw(
            `with doomed as (
               select id from mail_emails
               where created_at < ? and coalesce(last_event_at, created_at) < ?
                 and (send_state = 'done' or status = 'suppressed') ${only.sql}
               order by created_at
               limit ?
               for update skip locked),
             events as (delete from mail_email_events e using doomed where e.email_id = doomed.id returning 1),
             emails as (delete from mail_emails m using doomed where m.id = doomed.id returning 1)
             select (select count(*) from emails)::int as emails, (select count(*) from events)::int as events`,
            [cutoff, cutoff, ...only.params, opts.batchSize],
          )) as { rows: Array<{ emails: number; events: number }> };
          events += rows[0]?.events ?? 0;
          return rows[0]?.emails ?? 0;
        },
      });
      // Events that matched no email (a report about mail sent elsewhere), by when they came.
      if (run.drained) {
        const rest = await runStatement(
          opts,
          `delete from mail_email_events where event_id = any(array(
             select event_id from mail_email_events
             where email_id is null and recorded_at < ? ${only.sql}
             order by recorded_at
             limit ?
             for update skip locked))`,
          [cutoff, ...only.params],
          Math.max(0, opts.budgetMs - run.durationMs),
        );
        unmatched = rest.deleted;
        return {
          deleted: run.deleted,
          batches: run.batches + rest.batches,
          drained: rest.drained,
          durationMs: run.durationMs + rest.durationMs,
          deletedByTable: { mail_emails: run.deleted, mail_email_events: events + unmatched },
        };
      }
      return { ...run, deletedByTable: { mail_emails: run.deleted, mail_email_events: events } };
    },
    oldestAgeMs: oldestOf(opts, table, 'created_at'),
  };
}

export function createIdempotencyKeyPurge(opts: RetentionPurgeOptions): RetentionPurge {
  const table = 'mail_idempotency_keys';
  const only = productFilter(opts);
  return {
    table,
    async runOnce() {
      const now = new Date(opts.clock.nowMs());
      const run = await runStatement(
        opts,
        `delete from mail_idempotency_keys where (product_id, key_hash) in (
           select product_id, key_hash from mail_idempotency_keys
           where expires_at <= ? ${only.sql}
           order by expires_at
           limit ?
           for update skip locked)`,
        [now, ...only.params],
      );
      return { ...run, deletedByTable: { [table]: run.deleted } };
    },
    // Its rows live minutes: the age that matters is how far past its expiry the oldest one is.
    oldestAgeMs: oldestOf(opts, table, 'expires_at'),
  };
}
