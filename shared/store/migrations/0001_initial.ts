// Initial schema: products, their members, member tokens (hashed) and mail sending domains.
// Secrets are never stored in clear: member_tokens keeps the SHA-256 of the token and the first
// eight hex characters of its body for listings.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('products', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('members', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['product_id']);
  });
  await knex.raw(
    "alter table members add constraint members_role_check check (role in ('owner', 'admin', 'member'))",
  );

  await knex.schema.createTable('member_tokens', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.uuid('member_id').notNullable().references('id').inTable('members').onDelete('CASCADE');
    t.text('name').notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('visible', 8).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.index(['product_id']);
  });
  await knex.raw(
    "alter table member_tokens add constraint member_tokens_hash_check check (token_hash ~ '^[0-9a-f]{64}$')",
  );

  await knex.schema.createTable('mail_domains', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['product_id', 'name']);
  });
  await knex.raw(
    "alter table mail_domains add constraint mail_domains_status_check check (status in ('pending', 'verified'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mail_domains');
  await knex.schema.dropTableIfExists('member_tokens');
  await knex.schema.dropTableIfExists('members');
  await knex.schema.dropTableIfExists('products');
}
