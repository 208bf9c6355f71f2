// Keys: product public keys per edge environment, and the area keys of the mail (lmk_) and
// realtime (rtk_) toolkits. Only SHA-256 hashes and the first eight hex characters of the body
// are stored. An imported key is a second record carrying the same hash as its source.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mail_api_keys', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('scope').notNullable();
    t.uuid('domain_id').nullable().references('id').inTable('mail_domains').onDelete('SET NULL');
    t.string('key_hash', 64).notNullable().unique();
    t.string('visible', 8).notNullable();
    t.uuid('created_by').nullable().references('id').inTable('members').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.index(['product_id']);
  });
  await knex.raw(
    "alter table mail_api_keys add constraint mail_api_keys_scope_check check (scope in ('sending_access', 'full_access'))",
  );

  await knex.schema.createTable('realtime_api_keys', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('name').nullable();
    t.string('key_hash', 64).notNullable().unique();
    t.string('visible', 8).notNullable();
    t.uuid('created_by').nullable().references('id').inTable('members').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.index(['product_id']);
  });

  await knex.schema.createTable('public_keys', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('environment').notNullable();
    t.text('name').notNullable();
    t.text('prefix').notNullable();
    t.string('key_hash', 64).notNullable();
    t.string('visible', 8).notNullable();
    t.jsonb('scope').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.uuid('created_by').nullable().references('id').inTable('members').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.text('imported_from').nullable();
    t.uuid('source_key_id').nullable();
    t.unique(['environment', 'key_hash']);
    t.index(['product_id', 'environment']);
    t.index(['environment', 'status', 'revoked_at']);
  });
  await knex.raw(`
    alter table public_keys
      add constraint public_keys_environment_check check (environment in ('production', 'development')),
      add constraint public_keys_prefix_check check (prefix in ('lpk_', 'lmk_', 'rtk_')),
      add constraint public_keys_status_check check (status in ('active', 'revoked')),
      add constraint public_keys_name_check check (char_length(name) between 1 and 64),
      add constraint public_keys_hash_check check (key_hash ~ '^[0-9a-f]{64}$'),
      add constraint public_keys_imported_check check (imported_from is null or imported_from in ('mail', 'realtime')),
      add constraint public_keys_revoked_check check ((status = 'revoked') = (revoked_at is not null))`);
  // One import per source key and product.
  await knex.raw(
    'create unique index public_keys_source_unique on public_keys (product_id, source_key_id) where source_key_id is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('public_keys');
  await knex.schema.dropTableIfExists('realtime_api_keys');
  await knex.schema.dropTableIfExists('mail_api_keys');
}
