// The organization's people and its audit log (docs/organization.md).
// - members.removed_at: a removed member is kept (audit entries and public keys name it) but no
//   longer listed, found or authenticated; its tokens are revoked in the same transaction.
// - audit_log: one row per successful change of credentials or settings, written in the change's
//   own transaction. `seq` orders entries (newest first) and pages them; actor and target ids are
//   plain text without foreign keys, so an entry outlives what it names. `changes` holds field
//   names only, never values.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('members', (t) => {
    t.timestamp('removed_at', { useTz: true }).nullable();
  });
  await knex.schema.alterTable('member_tokens', (t) => {
    t.index(['member_id']);
  });

  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('seq').primary();
    t.uuid('id').notNullable().unique();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.text('actor_kind').notNullable();
    t.text('actor_member_id').nullable();
    t.text('actor_credential_id').nullable();
    t.text('operation').notNullable();
    t.text('target_type').notNullable();
    t.text('target_id').nullable();
    t.text('request_id').nullable();
    t.specificType('changes', 'text[]').notNullable().defaultTo('{}');
    t.index(['product_id', 'seq']);
  });
  await knex.raw(
    `alter table audit_log add constraint audit_log_actor_kind_check
       check (actor_kind in ('member_token', 'mail_key', 'realtime_key', 'cli'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_log');
  await knex.schema.alterTable('member_tokens', (t) => {
    t.dropIndex(['member_id']);
  });
  await knex.schema.alterTable('members', (t) => {
    t.dropColumn('removed_at');
  });
}
