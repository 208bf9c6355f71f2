// Realtime: namespaces and their policy, token signing keys per environment, and the durable
// state of channel actors (offsets, epoch, applied Kafka position), history and presence.
// Channels are scoped per product and environment: development keys never reach production data.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('realtime_namespaces', (t) => {
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('name').notNullable();
    t.boolean('presence').notNullable();
    t.boolean('client_events').notNullable();
    t.integer('history_window_seconds').notNullable();
    t.integer('archive_days').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['product_id', 'name']);
  });
  await knex.raw(`
    alter table realtime_namespaces
      add constraint realtime_namespaces_name_check check (name ~ '^[a-zA-Z0-9._-]{1,64}$'),
      add constraint realtime_namespaces_window_check check (history_window_seconds between 0 and 2592000),
      add constraint realtime_namespaces_archive_check check (archive_days between 0 and 3650)`);

  // HMAC keys that sign delegated tokens; one active per environment, created on first use.
  await knex.schema.createTable('realtime_signing_keys', (t) => {
    t.text('kid').primary();
    t.text('environment').notNullable();
    t.text('secret').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('retired_at', { useTz: true }).nullable();
  });
  await knex.raw(
    'create unique index realtime_signing_keys_active on realtime_signing_keys (environment) where retired_at is null',
  );

  await knex.schema.createTable('channel_state', (t) => {
    t.uuid('product_id').notNullable();
    t.text('environment').notNullable();
    t.text('channel').notNullable();
    t.text('epoch').notNullable();
    t.bigInteger('top_offset').notNullable();
    t.integer('applied_partition').notNullable();
    t.bigInteger('applied_offset').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['product_id', 'environment', 'channel']);
  });

  await knex.schema.createTable('channel_history', (t) => {
    t.uuid('product_id').notNullable();
    t.text('environment').notNullable();
    t.text('channel').notNullable();
    t.bigInteger('offset').notNullable();
    t.text('epoch').notNullable();
    t.text('message_id').notNullable();
    t.text('name').nullable();
    t.text('data_json').nullable();
    t.jsonb('ref').nullable();
    t.timestamp('published_at', { useTz: true }).notNullable();
    t.primary(['product_id', 'environment', 'channel', 'offset']);
    t.index(['published_at']);
  });
  await knex.raw(
    'alter table channel_history add constraint channel_history_payload_check check ((data_json is null) <> (ref is null))',
  );

  await knex.schema.createTable('channel_presence', (t) => {
    t.uuid('product_id').notNullable();
    t.text('environment').notNullable();
    t.text('channel').notNullable();
    t.text('connection_id').notNullable();
    t.text('identity').notNullable();
    t.text('info_json').nullable();
    t.text('gateway_id').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['product_id', 'environment', 'channel', 'connection_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'channel_presence',
    'channel_history',
    'channel_state',
    'realtime_signing_keys',
    'realtime_namespaces',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
