// The mail sender's sweeps, run periodically by the actors role (one or several processes):
//   retries   deferred emails whose next attempt is due get a record for that attempt on
//             mail.outbound. Each row is claimed first (deferred → requeued, FOR UPDATE SKIP
//             LOCKED, so two processes never take the same row and the sender's own writes are
//             never overwritten), then produced. A claimed row whose record never went out (the
//             produce failed, the process died) is produced again once it has been requeued for
//             longer than the grace: the copy names the same attempt, and the sender acts on the
//             first copy only.
//   orphans   an email accepted but never queued (the accepting process died between its
//             commit and its produce) gets its first record, or, suppressed at accept, its
//             `suppressed` event again (same derived id). Only rows older than the grace, far
//             longer than any accept, are looked at, each claimed (send_requeued_at) before it
//             is produced, and looked at again only after another grace.
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
  /** How old an unqueued email, or a requeued one never produced, must be. Default 120 000. */
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
  const scope = deps.productIds ? 'and product_id = any(?::uuid[])' : '';
  const scopeArgs = deps.productIds ? [deps.productIds as string[]] : [];

  async function produceAttempts(rows: DueRow[], attemptOf: (r: DueRow) => number): Promise<void> {
    if (rows.length === 0) return;
    await deps.producer.send(
      deps.outboundTopic,
      deps.outboundCodec,
      rows.map((r) => ({
        key: r.id,
        value: {
          email_id: r.id,
          product_id: r.product_id,
          attempt: attemptOf(r),
          accepted_at_ms: r.created_at.getTime(),
        },
      })),
    );
  }

  return {
    /** Claims and produces the due retries (and requeued ones left unproduced); answers how many. */
    async retries(): Promise<number> {
      const now = new Date(deps.clock.nowMs());
      const stale = new Date(deps.clock.nowMs() - graceMs);
      const { rows } = (await deps.db.raw(
        `update mail_emails set send_state = 'requeued', send_requeued_at = ?
          where id in (
            select id from mail_emails
             where ((send_state = 'deferred' and send_next_attempt_at <= ?)
                 or (send_state = 'requeued' and send_requeued_at < ?)) ${scope}
             order by send_next_attempt_at
             limit ?
             for update skip locked)
        returning id, product_id, send_attempts, created_at`,
        [now, now, stale, ...scopeArgs, batch],
      )) as { rows: DueRow[] };
      await produceAttempts(rows, (r) => r.send_attempts + 1);
      return rows.length;
    },

    /** Queues what an accept left unqueued; answers how many records and events it produced. */
    async orphans(): Promise<number> {
      const nowMs = deps.clock.nowMs();
      const before = new Date(nowMs - graceMs);
      const { rows } = (await deps.db.raw(
        `update mail_emails set send_requeued_at = ?
          where id in (
            select id from mail_emails
             where ((send_state = 'pending' and status = 'queued')
                 or (status = 'suppressed' and send_attempts = 0 and last_event_type is null))
               and created_at < ?
               and (send_requeued_at is null or send_requeued_at < ?) ${scope}
             limit ?
             for update skip locked)
        returning id, product_id, send_attempts, created_at, to_address, status`,
        [new Date(nowMs), before, before, ...scopeArgs, batch],
      )) as { rows: DueRow[] };
      await produceAttempts(
        rows.filter((r) => r.status === 'queued'),
        () => 1,
      );
      const suppressed = rows.filter((r) => r.status === 'suppressed');
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
      return rows.length;
    },
  };
}
