// Indexes that make each retention purge batch a short range scan (docs/operations.md
// "Retention"). Each is on a column written once (creation, receipt or expiry time), so no update
// of a row changes its entry. Built in the migration's transaction: CREATE INDEX CONCURRENTLY
// cannot run there, and the migration lock (an advisory lock other starting processes wait on
// inside their own transactions) would hold a concurrent build forever. A deployment with
// millions of rows in these tables can build them concurrently by hand before upgrading, under
// these names; `if not exists` then skips them.
import type { Knex } from 'knex';

const INDEXES: Array<[name: string, definition: string]> = [
  ['mail_webhook_deliveries_created', 'mail_webhook_deliveries (created_at)'],
  ['mail_emails_created', 'mail_emails (created_at)'],
  ['mail_email_events_unmatched', 'mail_email_events (recorded_at) where email_id is null'],
  ['mail_idempotency_keys_expiry', 'mail_idempotency_keys (expires_at)'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, definition] of INDEXES)
    await knex.raw(`create index if not exists ${name} on ${definition}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await knex.raw(`drop index if exists ${name}`);
}
