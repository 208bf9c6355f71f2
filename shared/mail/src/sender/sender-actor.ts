// The mail sender actor kind on `mail.outbound` (key: email id): the adapter around the pure
// sender logic. Per record it decides whether to act (sender-logic.ts decideRecord), marks the
// attempt started, re-checks suppression, hands the message over through the pooled SMTP
// transport, stores the result with the record's position, then publishes the event.
//
// Handover guarantee (docs/mail.md): at least once, duplicates only inside one window. SMTP is
// not idempotent: if the process dies after the smart host accepted DATA and before the result
// is stored (one UPDATE after the 250), the record is replayed, the row still says `sending`
// for this attempt, and the attempt is made again: a repeat, counted in send_repeats and
// lattice_mail_handover_repeats_total, carrying the same Message-ID so receivers can drop it.
// If the process dies after storing the result and before its event is in Kafka, the record is
// not replayed (its position is stored) but the actor is loaded again for it, and load
// re-publishes the stored outcome event under its id; consumers drop the second copy.
import { randomUUID } from 'node:crypto';
import {
  type Clock,
  isUuid,
  type Logger,
  RetryableError,
  retryWithBackoff,
  type Scheduler,
  TerminalError,
} from '@lattice/core';
import type { Actor, ActorKind, ActorRecord } from '@lattice/kafka';
import { isDataError } from '@lattice/store';
import type { MailOutboundRecord } from '../emails/outbound-record.ts';
import type { MailEventPublisher } from '../events/mail-event.ts';
import type { MailStages } from '../mail-stages.ts';
import { type MessageBuilder, UnsendableError } from './message-builder.ts';
import {
  type AttemptContext,
  type AttemptResult,
  attemptResult,
  decideRecord,
  suppressedAtSend,
  unsendable,
} from './sender-logic.ts';
import type { SenderMetrics } from './sender-metrics.ts';
import type { AttemptFence, SenderEmail, SenderStore } from './sender-store.ts';
import type { MailTransport } from './smtp-transport.ts';

export const MAIL_SENDER_KIND = 'mail-sender';

export interface SenderActorDeps {
  store: SenderStore;
  transport: MailTransport;
  build: MessageBuilder;
  events: MailEventPublisher;
  /** MAIL_RETRY_DELAYS_MS. */
  retryDelaysMs: readonly number[];
  metrics: SenderMetrics;
  clock: Clock;
  /** Waits between tries of storing a result. */
  scheduler: Scheduler;
  logger: Logger;
  /** Observes `fetched_sent` and `accepted_sent` of first attempts (docs/architecture.md "Where the time goes"). */
  stages?: MailStages;
}

function resultLabel(result: AttemptResult): string {
  if (result.sendState === 'deferred') return 'deferred';
  const { type, bounce_kind } = result.event;
  if (type === 'bounced')
    return bounce_kind === 'hard' ? 'hard_bounce' : bounce_kind === 'soft' ? 'soft_bounce' : 'undetermined';
  return type;
}

/** A database refusal of the data itself (SQLSTATE class 22): retrying cannot help. */
function terminalIfData(err: unknown): unknown {
  return isDataError(err)
    ? new TerminalError('the database refuses this record’s data', { cause: err })
    : err;
}

export function mailSenderActorKind(deps: SenderActorDeps): ActorKind<MailOutboundRecord> {
  const log = deps.logger.child({ component: 'mail-sender' });

  /**
   * Stores the result of an attempt whose answer is known. Tried again in place (never by a
   * reload, which would repeat the handover) for about two minutes before giving up to the host.
   */
  async function store(
    email: SenderEmail,
    fence: AttemptFence,
    result: AttemptResult,
    record: ActorRecord<MailOutboundRecord>,
  ) {
    const position = { partition: record.partition, offset: record.offset };
    return retryWithBackoff(
      () =>
        deps.store.recordResult(email.id, fence, result, position).catch((err) => {
          throw terminalIfData(err);
        }),
      {
        scheduler: deps.scheduler,
        backoff: { initialMs: 100, maxMs: 5_000, jitterRatio: 0.2 },
        maxAttempts: 30,
        beforeRetry(err, attempt, delayMs) {
          if (err instanceof TerminalError) throw err;
          log.warn({ err, emailId: email.id, attempt }, 'storing an attempt’s result failed; trying again');
          return delayMs;
        },
      },
    );
  }

  async function attempt(
    email: SenderEmail,
    n: number,
    repeat: boolean,
    record: ActorRecord<MailOutboundRecord>,
  ) {
    const ctx: AttemptContext = {
      emailId: email.id,
      productId: email.productId,
      recipient: email.toAddress,
      attempt: n,
      retryDelaysMs: deps.retryDelaysMs,
      nowMs: deps.clock.nowMs(),
      newEventId: randomUUID,
    };
    // Composed before the attempt is marked started: a failure here repeats nothing.
    let message: Awaited<ReturnType<MessageBuilder>> | null = null;
    let refusal: string | null = null;
    const content = await deps.store.content(email.id);
    if (!content) return; // deleted with its product meanwhile
    try {
      message = await deps.build(email, content, ctx.nowMs);
    } catch (err) {
      if (!(err instanceof UnsendableError)) throw err;
      refusal = err.message;
    }

    const started = await deps.store.startAttempt(email.id, email, n, repeat, ctx.nowMs);
    if (!started.started) {
      // Another owner moved the email on (or it was deleted): this actor is stale.
      throw new RetryableError('the email is no longer as this actor saw it', 0);
    }
    if (repeat) {
      deps.metrics.repeats.inc();
      log.warn({ emailId: email.id, attempt: n }, 'repeating an attempt whose outcome was never stored');
    }
    email.sendState = 'sending';
    email.attempts = n;

    let result: AttemptResult;
    if (started.suppressed) result = suppressedAtSend(ctx);
    else if (refusal !== null || message === null) result = unsendable(ctx, refusal ?? 'not composed');
    else {
      const answer = await deps.transport.send(message);
      const sentAtMs = deps.clock.nowMs();
      if (n === 1 && deps.stages) {
        if (record.fetchedAtMs !== undefined)
          deps.stages.observe('fetched_sent', sentAtMs - record.fetchedAtMs);
        deps.stages.observe('accepted_sent', sentAtMs - record.value.accepted_at_ms);
      }
      result = attemptResult({ ...ctx, nowMs: sentAtMs }, answer);
    }

    if (!(await store(email, started.fence, result, record))) {
      // Taken over while the smart host answered: the new owner decides what happens next.
      log.warn(
        { emailId: email.id, attempt: n },
        'an attempt’s result arrived after another owner took the email',
      );
      throw new RetryableError('fenced: another owner took the email over', 0);
    }
    email.applied = { partition: record.partition, offset: record.offset };
    email.sendState = result.sendState;
    deps.metrics.sends.inc({ result: resultLabel(result) });
    if (result.sendState === 'done') {
      email.outcomeEvent = result.event;
      // The outcome follows the send's request: one id from the edge to the webhook delivery.
      await deps.events.publish(result.event, record.requestId);
    }
  }

  return {
    name: MAIL_SENDER_KIND,
    async load(key: string): Promise<Actor<MailOutboundRecord>> {
      if (!isUuid(key)) throw new TerminalError(`not an email id: ${JSON.stringify(key)}`);
      const email = await deps.store.load(key);
      // A stored outcome whose event may not have reached Kafka (the process died in between):
      // published again under its id; consumers drop the copy.
      if (email?.outcomeEvent) await deps.events.publish(email.outcomeEvent);
      return {
        applied: () => email?.applied ?? null,
        async handle(records) {
          for (const record of records) {
            // The row is gone with its product: nothing to send, nothing to record.
            if (!email) continue;
            const decision = decideRecord(email, record.value.attempt);
            if (decision.act === 'skip') {
              await deps.store.markApplied(email.id, { partition: record.partition, offset: record.offset });
              email.applied = { partition: record.partition, offset: record.offset };
              continue;
            }
            await attempt(email, decision.attempt, decision.repeat, record);
          }
        },
      };
    },
  };
}
