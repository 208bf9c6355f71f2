// A deleted namespace leaves its channels' history behind, which no retention covers any more
// (retention is per namespace). Each deletion is recorded here; the history purge deletes what
// the namespace had published before it (not what a re-created namespace of the same name
// publishes after) and then removes the record.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('realtime_namespace_deletions', (t) => {
    t.uuid('product_id').notNullable();
    t.text('name').notNullable();
    t.timestamp('deleted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['product_id', 'name', 'deleted_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('realtime_namespace_deletions');
}
