// The mail sender's two sweeps, run periodically by the actors role:
//   retries   deferred emails whose next attempt is due get a record for that attempt on
//             mail.outbound (then send_state requeued). Produced before the update, so a crash
//             in between produces it again next time: the copy names an attempt already made
//             and the sender skips it.
//   orphans   an email accepted but never queued (the accepting process died between its
//             commit and its produce) gets its first record, or, suppressed at accept, its
//             `suppressed` event again (same derived id). Only rows older than graceMs, which
//             is far longer than any accept, are looked at; a queued row whose record is merely
//             waiting behind consumer lag gets a second record, which the sender skips.
// Both read through partial indexes (migration 0007), at most `batch` rows per run.
import type { Clock } from '@lattice/core';
import type { Codec, RecordProducer } from '@lattice/kafka';
import type { DbExecutor } from '@lattice/store';
import { SUPPRESSED_AT_ACCEPT } from '../emails/email-acceptor.ts';
import { derivedEventId, type MailOutboundRecord } from '../emails/outbound-record.ts';
import { type MailEventRecord, mailEventKey } from '../events/mail-event.ts';

export interface SenderSweepDeps {
  db: DbExecutor;
  clock: Clock;
  producer: RecordProducer;
  outboundTopic: string;
  outboundCodec: Codec<MailOutboundRecord>;
  eventsTopic: string;
  eventsCodec: Codec<MailEventRecord>;
  /** Rows per run. Default 500. */
  batch?: number;
  /** Default 120 000. */
  orphanGraceMs?: number;
  /** Limit to these products (tests sharing a database). */
  productIds?: readonly string[];
}

interface DueRow {
  id: string;
  product_id: string;
  send_attempts: number;
  created_at: Date;
  to_address: string;
  status: string;
}

export function createSenderSweeps(deps: SenderSweepDeps) {
  const batch = deps.batch ?? 500;
  const graceMs = deps.orphanGraceMs ?? 120_000;
  const scoped = (q: ReturnType<DbExecutor>) =>
    deps.productIds ? q.whereIn('product_id', deps.productIds as string[]) : q;

  return {
    /** Produces the due retries; answers how many. */
    async retries(): Promise<number> {
      const now = new Date(deps.clock.nowMs());
      const due = (await scoped(
        deps
          .db('mail_emails')
          .where({ send_state: 'deferred' })
          .where('send_next_attempt_at', '<=', now)
          .orderBy('send_next_attempt_at')
          .limit(batch)
          .select('id', 'product_id', 'send_attempts', 'created_at'),
      )) as DueRow[];
      if (due.length === 0) return 0;
      await deps.producer.send(
        deps.outboundTopic,
        deps.outboundCodec,
        due.map((r) => ({
          key: r.id,
          value: {
            email_id: r.id,
            product_id: r.product_id,
            attempt: r.send_attempts + 1,
            accepted_at_ms: r.created_at.getTime(),
          },
        })),
      );
      await deps
        .db('mail_emails')
        .whereIn(
          'id',
          due.map((r) => r.id),
        )
        .where({ send_state: 'deferred' })
        .update({ send_state: 'requeued' });
      return due.length;
    },

    /** Queues what an accept left unqueued; answers how many records and events it produced. */
    async orphans(): Promise<number> {
      const nowMs = deps.clock.nowMs();
      const before = new Date(nowMs - graceMs);
      const rows = (await scoped(
        deps
          .db('mail_emails')
          .where((q) =>
            q
              .where({ send_state: 'pending', status: 'queued' })
              .orWhere((s) =>
                s.where({ status: 'suppressed', send_attempts: 0 }).whereNull('last_event_type'),
              ),
          )
          .where('created_at', '<', before)
          .where((q) => q.whereNull('send_requeued_at').orWhere('send_requeued_at', '<', before))
          .limit(batch)
          .select('id', 'product_id', 'send_attempts', 'created_at', 'to_address', 'status'),
      )) as DueRow[];
      if (rows.length === 0) return 0;
      const queued = rows.filter((r) => r.status === 'queued');
      const suppressed = rows.filter((r) => r.status === 'suppressed');
      if (queued.length > 0) {
        await deps.producer.send(
          deps.outboundTopic,
          deps.outboundCodec,
          queued.map((r) => ({
            key: r.id,
            value: {
              email_id: r.id,
              product_id: r.product_id,
              attempt: 1,
              accepted_at_ms: r.created_at.getTime(),
            },
          })),
        );
      }
      if (suppressed.length > 0) {
        const events: MailEventRecord[] = suppressed.map((r) => ({
          event_id: derivedEventId(r.id, SUPPRESSED_AT_ACCEPT),
          product_id: r.product_id,
          email_id: r.id,
          type: 'suppressed',
          recipient: r.to_address,
          bounce_kind: null,
          reason: 'The recipient is on the suppression list',
          provider_message_id: null,
          link: null,
          occurred_at_ms: r.created_at.getTime(),
        }));
        await deps.producer.send(
          deps.eventsTopic,
          deps.eventsCodec,
          events.map((e) => ({ key: mailEventKey(e), value: e })),
        );
      }
      await deps
        .db('mail_emails')
        .whereIn(
          'id',
          rows.map((r) => r.id),
        )
        .update({ send_requeued_at: new Date(nowMs) });
      return rows.length;
    },
  };
}
