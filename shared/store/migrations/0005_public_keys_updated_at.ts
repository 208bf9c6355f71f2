// Edges refresh their key snapshot incrementally (rows changed since the last load): index it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('public_keys', (t) => {
    t.index(['environment', 'updated_at'], 'public_keys_environment_updated_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('public_keys', (t) => {
    t.dropIndex(['environment', 'updated_at'], 'public_keys_environment_updated_at');
  });
}
