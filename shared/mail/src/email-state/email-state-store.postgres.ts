// EmailStateStore on PostgreSQL (tables of migration 0007): the email-state actor's columns of
// mail_emails, mail_email_events and mail_suppressions, written in one transaction per commit.
import type { Knex } from 'knex';
import type { BounceKind, MailEventRecord, MailEventType } from '../events/mail-event.ts';
import { createPostgresSuppressionStore } from '../suppression/suppression-store.postgres.ts';
import type { EmailStatus } from './email-state.ts';
import { EmailStateFencedError, type EmailStateStore, type StoredEmailState } from './email-state-store.ts';

interface EmailRow {
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

function eventRow(productId: string, e: MailEventRecord) {
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
      const row = (await db('mail_emails')
        .where({ id: emailId })
        .first(
          'product_id',
          'to_address',
          'status',
          'last_event_type',
          'last_event_at',
          'last_event_bounce_kind',
          'last_event_reason',
          'state_partition',
          'state_offset',
        )) as EmailRow | undefined;
      if (!row) return null;
      const events = (await db('mail_email_events')
        .where({ email_id: emailId })
        .select('event_id', 'type', 'link')) as EventRow[];
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
      await db.transaction(async (trx) => {
        // The fence first: it also locks the row, so a stale owner waits here and then fails.
        const fence = trx('mail_emails').where({ id: c.emailId });
        if (c.expected === null) fence.whereNull('state_partition').whereNull('state_offset');
        else
          fence.where({ state_partition: c.expected.partition, state_offset: c.expected.offset.toString() });
        const last = c.state.lastEvent;
        const updated = (await fence.update(
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
        )) as Array<{ product_id: string }>;
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
