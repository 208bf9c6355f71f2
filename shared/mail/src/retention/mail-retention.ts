// Retention of the mail toolkit's tables (docs/operations.md "Retention"):
//   webhook deliveries   30 days (WEBHOOK_DELIVERY_RETENTION_DAYS) after their last attempt, once
//                        they are no longer pending
//   emails and events    30 days (MAIL_RETENTION_DAYS) after the email's last event (or its
//                        creation), once it is sent or suppressed; an event that matched no email
//                        30 days after it was received. The suppression list is kept.
//   idempotency keys     once past their window
// Each purge deletes in batches (one short statement each) within a time budget per run, resting
// between batches (batched-delete.ts). A batch reads one page of the table in the order of an
// index on a column written once (creation, receipt or expiry time), from where the previous
// batch of the run stopped, and deletes what on that page is past retention: rows kept although
// old (still pending, attempted lately, a late event) are passed once per run, not once per
// batch. Rows are picked FOR UPDATE SKIP LOCKED: a row a send, an event or a delivery holds is
// left for a later run, so a purge never makes them wait, and several actors hosts split the work.
import type { Clock } from '@lattice/core';
import { type BatchedRun, type BatchOutcome, type DbExecutor, runBatches } from '@lattice/store';
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
  /** The rest between batches (the scheduler's sleep); absent: none (tests). */
  pause?: (ms: number) => Promise<void>;
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

function runOf(opts: RetentionPurgeOptions, batch: () => Promise<BatchOutcome>, budgetMs = opts.budgetMs) {
  return runBatches({ clock: opts.clock, budgetMs, batch, ...(opts.pause ? { pause: opts.pause } : {}) });
}

/**
 * Where the pages have got to: the last (time, id) read. Kept from run to run, so a run that
 * stopped on its budget is followed by one that goes on from there; back to the start once a
 * page comes back short (the end of what is old enough).
 */
interface Cursor {
  at: Date;
  id: string;
}

const START: Cursor = { at: new Date(0), id: '00000000-0000-0000-0000-000000000000' };

interface PageRow {
  deleted: number;
  scanned: number;
  last_at: Date | null;
  last_id: string | null;
}

/** Advances `cursor` past the page and says whether a next page may hold more (else: back to the start). */
function advance(cursor: Cursor, row: PageRow | undefined, batchSize: number): boolean {
  const more = (row?.scanned ?? 0) >= batchSize;
  if (more && row?.last_at && row.last_id) {
    cursor.at = row.last_at;
    cursor.id = row.last_id;
  } else {
    cursor.at = START.at;
    cursor.id = START.id;
  }
  return more;
}

export function createWebhookDeliveryPurge(
  opts: RetentionPurgeOptions & { retentionDays: number },
): RetentionPurge {
  const table = 'mail_webhook_deliveries';
  const only = productFilter(opts);
  const cursor = { ...START };
  return {
    table,
    async runOnce() {
      const cutoff = new Date(opts.clock.nowMs() - opts.retentionDays * DAY_MS);
      const run = await runOf(opts, async () => {
        const { rows } = (await opts.db.raw(
          `with page as (
             select id, created_at, status, last_attempt_at from mail_webhook_deliveries
             where created_at < ? and (created_at, id) > (?, ?) ${only.sql}
             order by created_at, id
             limit ?),
           doomed as (
             select d.id from mail_webhook_deliveries d join page p on p.id = d.id
             where p.status <> 'pending' and coalesce(p.last_attempt_at, p.created_at) < ?
             for update of d skip locked),
           gone as (delete from mail_webhook_deliveries x using doomed where x.id = doomed.id returning 1),
           last as (select created_at, id from page order by created_at desc, id desc limit 1)
           select (select count(*) from gone)::int as deleted, (select count(*) from page)::int as scanned,
                  (select created_at from last) as last_at, (select id from last) as last_id`,
          [cutoff, cursor.at, cursor.id, ...only.params, opts.batchSize, cutoff],
        )) as { rows: PageRow[] };
        return { deleted: rows[0]?.deleted ?? 0, more: advance(cursor, rows[0], opts.batchSize) };
      });
      return { ...run, deletedByTable: { [table]: run.deleted } };
    },
    oldestAgeMs: oldestOf(opts, table, 'created_at'),
  };
}

export function createEmailPurge(opts: RetentionPurgeOptions & { retentionDays: number }): RetentionPurge {
  const table = 'mail_emails';
  const only = productFilter(opts);
  // Which phase goes first alternates, so a lasting backlog of one never starves the other.
  let unmatchedFirst = false;
  const cursor = { ...START };
  return {
    table,
    async runOnce() {
      const cutoff = new Date(opts.clock.nowMs() - opts.retentionDays * DAY_MS);
      let events = 0;
      const emails = (budgetMs: number) =>
        runOf(
          opts,
          async () => {
            const { rows } = (await opts.db.raw(
              `with page as (
                 select id, created_at, last_event_at, send_state, status from mail_emails
                 where created_at < ? and (created_at, id) > (?, ?) ${only.sql}
                 order by created_at, id
                 limit ?),
               doomed as (
                 select m.id from mail_emails m join page p on p.id = m.id
                 where coalesce(p.last_event_at, p.created_at) < ? and (p.send_state = 'done' or p.status = 'suppressed')
                 for update of m skip locked),
               events as (delete from mail_email_events e using doomed where e.email_id = doomed.id returning 1),
               gone as (delete from mail_emails x using doomed where x.id = doomed.id returning 1),
               last as (select created_at, id from page order by created_at desc, id desc limit 1)
               select (select count(*) from gone)::int as deleted, (select count(*) from page)::int as scanned,
                      (select count(*) from events)::int as events,
                      (select created_at from last) as last_at, (select id from last) as last_id`,
              [cutoff, cursor.at, cursor.id, ...only.params, opts.batchSize, cutoff],
            )) as { rows: Array<PageRow & { events: number }> };
            events += rows[0]?.events ?? 0;
            return { deleted: rows[0]?.deleted ?? 0, more: advance(cursor, rows[0], opts.batchSize) };
          },
          budgetMs,
        );
      // Events that matched no email (a report about mail sent elsewhere), by when they came: all
      // past the cutoff go, so the oldest page is always the next one.
      const unmatched = (budgetMs: number) =>
        runOf(
          opts,
          async () => {
            const res = (await opts.db.raw(
              `delete from mail_email_events where event_id = any(array(
                 select event_id from mail_email_events
                 where email_id is null and recorded_at < ? ${only.sql}
                 order by recorded_at
                 limit ?
                 for update skip locked))`,
              [cutoff, ...only.params, opts.batchSize],
            )) as { rowCount: number | null };
            const deleted = res.rowCount ?? 0;
            return { deleted, more: deleted >= opts.batchSize };
          },
          budgetMs,
        );
      const unmatchedWentFirst = unmatchedFirst;
      unmatchedFirst = !unmatchedFirst;
      const phases = unmatchedWentFirst ? [unmatched, emails] : [emails, unmatched];
      const first = await phases[0]!(opts.budgetMs);
      // The second phase only with budget left: a run never starts a batch after its budget.
      const rest = opts.budgetMs - first.durationMs;
      const second =
        first.drained && rest > 0
          ? await phases[1]!(rest)
          : { deleted: 0, batches: 0, drained: false, durationMs: 0 };
      const [emailRun, unmatchedRun] = unmatchedWentFirst ? [second, first] : [first, second];
      return {
        deleted: emailRun.deleted,
        batches: first.batches + second.batches,
        drained: first.drained && second.drained,
        durationMs: first.durationMs + second.durationMs,
        deletedByTable: { mail_emails: emailRun.deleted, mail_email_events: events + unmatchedRun.deleted },
      };
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
      // Every key past its expiry goes, so the oldest page is always the next one.
      const run = await runOf(opts, async () => {
        const res = (await opts.db.raw(
          `delete from mail_idempotency_keys where (product_id, key_hash) in (
             select product_id, key_hash from mail_idempotency_keys
             where expires_at <= ? ${only.sql}
             order by expires_at
             limit ?
             for update skip locked)`,
          [now, ...only.params, opts.batchSize],
        )) as { rowCount: number | null };
        const deleted = res.rowCount ?? 0;
        return { deleted, more: deleted >= opts.batchSize };
      });
      return { ...run, deletedByTable: { [table]: run.deleted } };
    },
    // Its rows live minutes: the age that matters is how far past its expiry the oldest one is.
    oldestAgeMs: oldestOf(opts, table, 'expires_at'),
  };
}
