// Channel actors: the recent message ids a channel actor deduplicates publishes by (a publisher
// that retries a send after an ambiguous failure writes the same message_id twice), and an
// index for the presence sweep, which looks for expired entries across every channel.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table channel_state add column recent_message_ids jsonb not null default '[]'::jsonb`,
  );
  await knex.raw('create index channel_presence_expires_at on channel_presence (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists channel_presence_expires_at');
  await knex.raw('alter table channel_state drop column if exists recent_message_ids');
}
