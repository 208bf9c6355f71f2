// Mail toolkit: DKIM keys and tracking switches on sending domains, accepted emails with their
// content (Kafka records carry only the id), the sender's and the email-state actor's
// bookkeeping, every recorded event, the suppression list and send Idempotency-Keys.
// Ownership of the email row's columns (DESIGN.md "one writer per key"):
//   accept path      inserts the row (status queued, or suppressed at accept)
//   mail sender      send_* columns: attempts, handover bookkeeping, its applied Kafka position
//   email-state      status and last_event_*: its applied position on mail.events
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mail_domains', (t) => {
    // `l<yyyymmdd><n>`: dated, so a rotation can publish the next selector before switching.
    t.text('dkim_selector').nullable();
    // AES-256-GCM sealed PKCS#8 PEM (secret-keyring.ts); the public half is published in DNS.
    t.text('dkim_private_key_sealed').nullable();
    t.text('dkim_public_key').nullable();
    t.boolean('open_tracking').notNullable().defaultTo(false);
    t.boolean('click_tracking').notNullable().defaultTo(false);
    t.timestamp('verified_at', { useTz: true }).nullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('mail_emails', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('environment').notNullable();
    t.uuid('domain_id').nullable().references('id').inTable('mail_domains').onDelete('SET NULL');
    // As given (display name included) and the bare lower-cased address the rules use.
    t.text('from_header').notNullable();
    t.text('to_header').notNullable();
    t.text('to_address').notNullable();
    t.text('subject').notNullable();
    t.text('html').nullable();
    t.text('text').nullable();
    t.text('reply_to').nullable();
    t.jsonb('headers').notNullable().defaultTo('{}');
    t.jsonb('tags').notNullable().defaultTo('[]');
    t.boolean('track_opens').notNullable().defaultTo(false);
    t.boolean('track_clicks').notNullable().defaultTo(false);
    t.text('message_id').notNullable();
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // The mail sender's columns.
    t.integer('send_attempts').notNullable().defaultTo(0);
    t.text('send_state').notNullable().defaultTo('pending');
    t.timestamp('send_next_attempt_at', { useTz: true }).nullable();
    t.timestamp('send_handover_started_at', { useTz: true }).nullable();
    t.integer('send_repeats').notNullable().defaultTo(0);
    t.text('provider_message_id').nullable();
    t.jsonb('send_outcome_event').nullable();
    t.integer('send_partition').nullable();
    t.bigInteger('send_offset').nullable();
    t.timestamp('send_requeued_at', { useTz: true }).nullable();
    // The email-state actor's columns.
    t.text('last_event_type').nullable();
    t.timestamp('last_event_at', { useTz: true }).nullable();
    t.text('last_event_bounce_kind').nullable();
    t.text('last_event_reason').nullable();
    t.integer('state_partition').nullable();
    t.bigInteger('state_offset').nullable();
    t.index(['product_id', 'created_at']);
    t.index(['message_id']);
  });
  await knex.raw(`
    alter table mail_emails
      add constraint mail_emails_status_check check (status in ('queued', 'delivered', 'bounced', 'suppressed')),
      add constraint mail_emails_send_state_check check (send_state in ('pending', 'sending', 'deferred', 'requeued', 'done'))`);
  // The retry job's and the orphan sweep's scans.
  await knex.raw(
    `create index mail_emails_deferred on mail_emails (send_next_attempt_at) where send_state = 'deferred'`,
  );
  await knex.raw(
    `create index mail_emails_requeued on mail_emails (send_requeued_at) where send_state = 'requeued'`,
  );
  await knex.raw(
    `create index mail_emails_unsent on mail_emails (created_at) where send_state = 'pending' and status = 'queued'`,
  );
  await knex.raw(
    `create index mail_emails_suppressed_unsent on mail_emails (created_at)
       where status = 'suppressed' and send_attempts = 0 and last_event_type is null`,
  );

  await knex.schema.createTable('mail_email_events', (t) => {
    t.uuid('event_id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.uuid('email_id').nullable();
    t.text('type').notNullable();
    t.text('recipient').notNullable();
    t.text('bounce_kind').nullable();
    t.text('reason').nullable();
    t.text('provider_message_id').nullable();
    t.text('link').nullable();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.timestamp('recorded_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['email_id', 'occurred_at']);
  });
  // Spec "Mail webhook events" rule 2: one open per message, one click per distinct link.
  await knex.raw(
    `create unique index mail_email_events_one_open on mail_email_events (email_id) where type = 'opened'`,
  );
  await knex.raw(
    `create unique index mail_email_events_one_click on mail_email_events (email_id, link) where type = 'clicked'`,
  );

  await knex.schema.createTable('mail_suppressions', (t) => {
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('address').notNullable();
    t.text('reason').notNullable();
    t.uuid('email_id').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['product_id', 'address']);
  });
  await knex.raw(`
    alter table mail_suppressions
      add constraint mail_suppressions_reason_check check (reason in ('hard_bounce', 'complaint', 'unsubscribe', 'manual')),
      add constraint mail_suppressions_lower_check check (address = lower(address))`);
  await knex.raw(
    'create index mail_suppressions_list on mail_suppressions (product_id, created_at desc, address)',
  );

  // decisions.md: Idempotency-Keys per product, shared by both surfaces, kept 5 minutes.
  await knex.schema.createTable('mail_idempotency_keys', (t) => {
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.string('key_hash', 64).notNullable();
    t.string('body_hash', 64).notNullable();
    t.uuid('email_id').notNullable();
    t.boolean('completed').notNullable().defaultTo(false);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['product_id', 'key_hash']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mail_idempotency_keys');
  await knex.schema.dropTableIfExists('mail_suppressions');
  await knex.schema.dropTableIfExists('mail_email_events');
  await knex.schema.dropTableIfExists('mail_emails');
  await knex.schema.alterTable('mail_domains', (t) => {
    t.dropColumns(
      'dkim_selector',
      'dkim_private_key_sealed',
      'dkim_public_key',
      'open_tracking',
      'click_tracking',
      'verified_at',
      'updated_at',
    );
  });
}
