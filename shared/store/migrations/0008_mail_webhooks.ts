// Mail webhooks: the product's endpoints and one delivery row per event per subscribed endpoint.
// Ownership of the columns (DESIGN.md "one writer per key"):
//   management API      endpoint rows (url, events, description, enabled; the secret once)
//   webhook fan-out     inserts delivery rows (pending) in the order it records them (`seq`)
//   endpoint actor      the delivery's attempt columns, fenced on `attempts`; an endpoint's
//                       failure count and its automatic disable
//   operator actions    put a failed delivery back to pending (retry, recover)
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mail_webhook_endpoints', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.text('description').nullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    // AES-256-GCM sealed `whsec_...` (secret-keyring.ts): it signs every attempt, so not a hash.
    t.text('secret_sealed').notNullable();
    // Deliveries failed for good after their attempts, in a row; 3 disable the endpoint.
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    // Why the endpoint was last disabled: `manual`, `failures` (3 in a row) or `gone` (410).
    t.text('disabled_reason').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Deleted endpoints are kept so their pending deliveries fail without a request, as the
    // spec's delivery table says, instead of vanishing.
    t.timestamp('deleted_at', { useTz: true }).nullable();
  });
  await knex.raw(
    `create index mail_webhook_endpoints_live on mail_webhook_endpoints (product_id, created_at, id)
       where deleted_at is null`,
  );

  await knex.schema.createTable('mail_webhook_deliveries', (t) => {
    // nameBasedUuid(event, endpoint): the primary key is what makes one delivery per event and
    // endpoint, so no second unique index is paid for on every insert.
    t.uuid('id').primary();
    // The fan-out's recording order: an endpoint's deliveries are sent in `seq` order.
    t.bigIncrements('seq', { primaryKey: false });
    // No foreign key: its check would lock the endpoint's row (FOR KEY SHARE) for every delivery
    // inserted, and the fan-out inserts an endpoint's deliveries from many emails at once.
    // Endpoints are never removed (a delete is soft); a product's deletion leaves its deliveries
    // unreachable (every read goes through a live endpoint of the product).
    t.uuid('endpoint_id').notNullable();
    t.uuid('product_id').notNullable();
    t.uuid('event_id').notNullable();
    t.text('event_type').notNullable();
    // The exact body every attempt sends (signatures cover these bytes).
    t.text('payload').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    // The attempt count at which the current round of 5 ends (retry and recover add 5).
    t.integer('max_attempts').notNullable().defaultTo(5);
    t.timestamp('next_attempt_at', { useTz: true }).nullable();
    t.timestamp('last_attempt_at', { useTz: true }).nullable();
    t.integer('response_status').nullable();
    t.text('last_error').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['endpoint_id', 'seq']);
  });
  await knex.raw(`
    alter table mail_webhook_deliveries
      add constraint mail_webhook_deliveries_status_check check (status in ('pending', 'succeeded', 'failed'))`);
  // The endpoint loops' window read and the wake sweep's scan of each endpoint's oldest pending
  // delivery. (Nothing else is indexed: every index is paid for by every delivery's two writes.)
  await knex.raw(
    `create index mail_webhook_deliveries_pending on mail_webhook_deliveries (endpoint_id, seq)
       where status = 'pending'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mail_webhook_deliveries');
  await knex.schema.dropTableIfExists('mail_webhook_endpoints');
}
