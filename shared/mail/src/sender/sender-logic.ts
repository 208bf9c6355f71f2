// The mail sender's decisions, pure (DESIGN.md principle 3): which record of mail.outbound to act
// on, and what an attempt's outcome makes of the email. The actor adapter (sender-actor.ts) does
// the I/O: PostgreSQL, SMTP, Kafka.
//
// send_state of an email (the sender's own column):
//   pending   accepted, waiting for its first attempt
//   sending   an attempt started (send_handover_started_at) and its outcome is not stored yet
//   deferred  a 4xx (or a connection failure): the retry job produces the next attempt when due
//   requeued  the retry job produced it
//   done      delivered, bounced or suppressed: nothing more to send
// A record names the attempt it asks for; anything else is a stale copy and skipped.
import type { MailEventRecord } from '../events/mail-event.ts';
import type { SmtpOutcome } from './smtp-outcome.ts';

export type SendState = 'pending' | 'sending' | 'deferred' | 'requeued' | 'done';

export interface SenderView {
  sendState: SendState;
  /** Attempts started so far. */
  attempts: number;
}

export type RecordDecision =
  /** Start attempt `attempt`. `repeat`: the previous process died during this very attempt. */
  { act: 'attempt'; attempt: number; repeat: boolean } | { act: 'skip' };

export function decideRecord(view: SenderView, recordAttempt: number): RecordDecision {
  const { sendState, attempts } = view;
  if (sendState === 'done') return { act: 'skip' };
  if (sendState === 'sending' && recordAttempt === attempts)
    return { act: 'attempt', attempt: attempts, repeat: true };
  if (sendState !== 'sending' && recordAttempt === attempts + 1)
    return { act: 'attempt', attempt: recordAttempt, repeat: false };
  return { act: 'skip' };
}

export interface AttemptContext {
  emailId: string;
  productId: string;
  recipient: string;
  attempt: number;
  /** MAIL_RETRY_DELAYS_MS: one more attempt per value. */
  retryDelaysMs: readonly number[];
  nowMs: number;
  newEventId: () => string;
}

export type AttemptResult =
  | { sendState: 'done'; event: MailEventRecord; providerMessageId: string | null }
  | { sendState: 'deferred'; nextAttemptAtMs: number; reason: string };

function event(
  ctx: AttemptContext,
  fields: Partial<MailEventRecord> & Pick<MailEventRecord, 'type'>,
): MailEventRecord {
  return {
    event_id: ctx.newEventId(),
    product_id: ctx.productId,
    email_id: ctx.emailId,
    recipient: ctx.recipient,
    bounce_kind: null,
    reason: null,
    provider_message_id: null,
    link: null,
    occurred_at_ms: ctx.nowMs,
    ...fields,
  };
}

/** The recipient was found suppressed at send time: `email.suppressed` again, nothing handed over. */
export function suppressedAtSend(ctx: AttemptContext): AttemptResult {
  return {
    sendState: 'done',
    providerMessageId: null,
    event: event(ctx, { type: 'suppressed', reason: 'The recipient is on the suppression list' }),
  };
}

/** The email can never be composed (UnsendableError): an undetermined bounce, nothing suppressed. */
export function unsendable(ctx: AttemptContext, reason: string): AttemptResult {
  return {
    sendState: 'done',
    providerMessageId: null,
    event: event(ctx, { type: 'bounced', bounce_kind: 'undetermined', reason }),
  };
}

export function attemptResult(ctx: AttemptContext, outcome: SmtpOutcome): AttemptResult {
  if (outcome.kind === 'accepted') {
    return {
      sendState: 'done',
      providerMessageId: outcome.providerMessageId,
      event: event(ctx, { type: 'delivered', provider_message_id: outcome.providerMessageId }),
    };
  }
  if (outcome.kind === 'rejected' && outcome.permanent) {
    return {
      sendState: 'done',
      providerMessageId: null,
      event: event(ctx, { type: 'bounced', bounce_kind: 'hard', reason: outcome.reason }),
    };
  }
  const delayMs = ctx.retryDelaysMs[ctx.attempt - 1];
  if (delayMs !== undefined) {
    return { sendState: 'deferred', nextAttemptAtMs: ctx.nowMs + delayMs, reason: outcome.reason };
  }
  return {
    sendState: 'done',
    providerMessageId: null,
    event: event(ctx, {
      type: 'bounced',
      bounce_kind: outcome.kind === 'rejected' ? 'soft' : 'undetermined',
      reason: outcome.reason,
    }),
  };
}
