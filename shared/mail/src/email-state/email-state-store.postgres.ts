// EmailStateStore on PostgreSQL (tables of migration 0007): the email-state actor's columns of
// mail_emails, mail_email_events and mail_suppressions, written atomically per commit. Every
// statement is a round trip, which costs PostgreSQL and this process more than the statement
// itself: a load is one statement (the email's events come along as JSON), and a commit without
// suppressions is one statement too (the fenced UPDATE and the events' INSERT in one WITH); a
// commit that suppresses an address is a transaction.
import type { Knex } from 'knex';
import type { BounceKind, MailEventRecord, MailEventType } from '../events/mail-event.ts';
import { createPostgresSuppressionStore } from '../suppression/suppression-store.postgres.ts';
import type { EmailStatus } from './email-state.ts';
import { EmailStateFencedError, type EmailStateStore, type StoredEmailState } from './email-state-store.ts';

interface EmailRow {
  /** The email's recorded events (mail_email_events), as JSON. */
  events: EventRow[];
  product_id: string;
  to_address: string;
  status: EmailStatus;
  last_event_type: MailEventType | null;
  last_event_at: Date | null;
  last_event_bounce_kind: BounceKind | null;
  last_event_reason: string | null;
  state_partition: number | null;
  state_offset: string | null;
}

interface EventRow {
  event_id: string;
  type: MailEventType;
  link: string | null;
}

/** The columns of mail_email_events a commit writes (recorded_at takes its default). */
const EVENT_COLUMNS = [
  'event_id',
  'product_id',
  'email_id',
  'type',
  'recipient',
  'bounce_kind',
  'reason',
  'provider_message_id',
  'link',
  'occurred_at',
] as const;

function eventRow(productId: string, e: MailEventRecord): Record<(typeof EVENT_COLUMNS)[number], unknown> {
  return {
    event_id: e.event_id,
    product_id: productId,
    email_id: e.email_id,
    type: e.type,
    recipient: e.recipient,
    bounce_kind: e.bounce_kind,
    reason: e.reason,
    provider_message_id: e.provider_message_id,
    link: e.link,
    occurred_at: new Date(e.occurred_at_ms),
  };
}

export function createPostgresEmailStateStore(db: Knex): EmailStateStore {
  return {
    async load(emailId): Promise<StoredEmailState | null> {
      const row = (await db('mail_emails as e')
        .where('e.id', emailId)
        .first(
          'e.product_id',
          'e.to_address',
          'e.status',
          'e.last_event_type',
          'e.last_event_at',
          'e.last_event_bounce_kind',
          'e.last_event_reason',
          'e.state_partition',
          'e.state_offset',
          db.raw(
            `coalesce((select json_agg(json_build_object('event_id', v.event_id, 'type', v.type, 'link', v.link))
                         from mail_email_events v where v.email_id = e.id), '[]'::json) as events`,
          ),
        )) as EmailRow | undefined;
      if (!row) return null;
      const events = row.events;
      return {
        state: {
          emailId,
          productId: row.product_id,
          recipient: row.to_address.toLowerCase(),
          status: row.status,
          lastEvent:
            row.last_event_type === null || row.last_event_at === null
              ? null
              : {
                  type: row.last_event_type,
                  occurredAtMs: row.last_event_at.getTime(),
                  bounceKind: row.last_event_bounce_kind,
                  reason: row.last_event_reason,
                },
          opened: events.some((e) => e.type === 'opened'),
          clickedLinks: new Set(events.filter((e) => e.type === 'clicked').map((e) => e.link!)),
          recordedEventIds: new Set(events.map((e) => e.event_id)),
        },
        applied:
          row.state_partition === null || row.state_offset === null
            ? null
            : { partition: row.state_partition, offset: BigInt(row.state_offset) },
      };
    },

    async commit(c) {
      const last = c.state.lastEvent;
      /** The fenced UPDATE: it also locks the row, so a stale owner waits here and then fails. */
      const fenced = (q: Knex) => {
        const fence = q('mail_emails').where({ id: c.emailId });
        if (c.expected === null) fence.whereNull('state_partition').whereNull('state_offset');
        else
          fence.where({ state_partition: c.expected.partition, state_offset: c.expected.offset.toString() });
        return fence.update(
          {
            status: c.state.status,
            last_event_type: last?.type ?? null,
            last_event_at: last === null ? null : new Date(last.occurredAtMs),
            last_event_bounce_kind: last?.bounceKind ?? null,
            last_event_reason: last?.reason ?? null,
            state_partition: c.applied.partition,
            state_offset: c.applied.offset.toString(),
          },
          ['product_id'],
        );
      };
      if (c.suppressions.length === 0) {
        // One statement, atomic by itself: the events are inserted only when the fence held (a
        // replayed event id, a second open or a repeated link is ignored by the table's keys).
        const updated = (
          c.events.length === 0
            ? await fenced(db)
            : await db
                .with('fenced', fenced(db))
                .with(
                  'recorded',
                  db.raw(
                    `insert into mail_email_events (${EVENT_COLUMNS.join(', ')})
                     select ${EVENT_COLUMNS.map((col) => (col === 'product_id' ? 'f.product_id' : `r.${col}`)).join(', ')}
                       from fenced f cross join json_populate_recordset(null::mail_email_events, ?::json) r
                     on conflict do nothing`,
                    // product_id is the fenced row's; every other column is the event's.
                    [JSON.stringify(c.events.map((e) => ({ ...eventRow('', e), product_id: undefined })))],
                  ),
                )
                .select('product_id')
                .from('fenced')
        ) as Array<{ product_id: string }>;
        if (updated[0]?.product_id === undefined) throw new EmailStateFencedError(c.emailId);
        return;
      }
      await db.transaction(async (trx) => {
        const updated = (await fenced(trx)) as Array<{ product_id: string }>;
        const productId = updated[0]?.product_id;
        if (productId === undefined) throw new EmailStateFencedError(c.emailId);
        if (c.events.length > 0) {
          // A replayed event id, a second open or a repeated link is ignored by the table's keys
          // (the logic already dropped them; this keeps a replay harmless whatever happens).
          await trx('mail_email_events')
            .insert(c.events.map((e) => eventRow(productId, e)))
            .onConflict()
            .ignore();
        }
        const suppressions = createPostgresSuppressionStore(trx);
        for (const s of c.suppressions) {
          await suppressions.add(productId, { address: s.address, reason: s.reason, emailId: s.emailId });
        }
      });
    },
  };
}
