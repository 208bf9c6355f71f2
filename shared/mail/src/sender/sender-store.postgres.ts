// The mail sender's store on the mail_emails row (one row per email, keyed like the actor).
import type { DbExecutor } from '@lattice/store';
import type { MailEventRecord } from '../events/mail-event.ts';
import type { SendState } from './sender-logic.ts';
import type { SenderEmail, SenderStore } from './sender-store.ts';

interface Row {
  id: string;
  product_id: string;
  environment: 'production' | 'development';
  domain_id: string | null;
  from_header: string;
  to_header: string;
  to_address: string;
  subject: string;
  reply_to: string | null;
  headers: Record<string, string>;
  track_opens: boolean;
  track_clicks: boolean;
  message_id: string;
  send_state: SendState;
  send_attempts: number;
  send_outcome_event: MailEventRecord | null;
  send_partition: number | null;
  send_offset: string | null;
}

const COLUMNS = [
  'id',
  'product_id',
  'environment',
  'domain_id',
  'from_header',
  'to_header',
  'to_address',
  'subject',
  'reply_to',
  'headers',
  'track_opens',
  'track_clicks',
  'message_id',
  'send_state',
  'send_attempts',
  'send_outcome_event',
  'send_partition',
  'send_offset',
];

export function createPostgresSenderStore(db: DbExecutor): SenderStore {
  return {
    async load(emailId) {
      const row = (await db('mail_emails').where({ id: emailId }).first(COLUMNS)) as Row | undefined;
      if (!row) return undefined;
      const email: SenderEmail = {
        id: row.id,
        productId: row.product_id,
        environment: row.environment,
        domainId: row.domain_id,
        fromHeader: row.from_header,
        toHeader: row.to_header,
        toAddress: row.to_address,
        subject: row.subject,
        replyTo: row.reply_to,
        headers: row.headers,
        trackOpens: row.track_opens,
        trackClicks: row.track_clicks,
        messageId: row.message_id,
        sendState: row.send_state,
        attempts: row.send_attempts,
        outcomeEvent: row.send_outcome_event,
        applied:
          row.send_partition === null || row.send_offset === null
            ? null
            : { partition: row.send_partition, offset: BigInt(row.send_offset) },
      };
      return email;
    },

    async content(emailId) {
      const row = (await db('mail_emails').where({ id: emailId }).first('html', 'text')) as
        | { html: string | null; text: string | null }
        | undefined;
      return row ? { html: row.html, text: row.text } : undefined;
    },

    async startAttempt(emailId, seen, attempt, repeat, nowMs) {
      const startedAt = new Date(nowMs);
      const rows = (await db.raw(
        `update mail_emails e
            set send_state = 'sending', send_attempts = ?, send_handover_started_at = ?,
                send_repeats = send_repeats + ?
          where e.id = ? and e.send_state = ? and e.send_attempts = ?
        returning exists (select 1 from mail_suppressions s
                           where s.product_id = e.product_id and s.address = e.to_address) as suppressed`,
        [attempt, startedAt, repeat ? 1 : 0, emailId, seen.sendState, seen.attempts],
      )) as { rows: Array<{ suppressed: boolean }> };
      const row = rows.rows[0];
      return row
        ? { started: true, fence: { attempt, startedAt }, suppressed: row.suppressed }
        : { started: false };
    },

    async recordResult(emailId, fence, result, position) {
      const n = await db('mail_emails')
        .where({
          id: emailId,
          send_state: 'sending',
          send_attempts: fence.attempt,
          send_handover_started_at: fence.startedAt,
        })
        .update({
          send_state: result.sendState,
          send_next_attempt_at: result.sendState === 'deferred' ? new Date(result.nextAttemptAtMs) : null,
          provider_message_id: result.sendState === 'done' ? result.providerMessageId : null,
          send_outcome_event: result.sendState === 'done' ? JSON.stringify(result.event) : null,
          send_partition: position.partition,
          send_offset: position.offset.toString(),
        });
      return n === 1;
    },

    async markApplied(emailId, position) {
      await db('mail_emails')
        .where({ id: emailId })
        .update({ send_partition: position.partition, send_offset: position.offset.toString() });
    },
  };
}
