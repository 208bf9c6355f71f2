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
import { type Clock, isUuid, type Logger, TerminalError } from '@lattice/core';
import type { Actor, ActorKind, ActorRecord } from '@lattice/kafka';
import type { MailOutboundRecord } from '../emails/outbound-record.ts';
import type { MailEventPublisher } from '../events/mail-event.ts';
import type { MessageBuilder } from './message-builder.ts';
import { type AttemptResult, attemptResult, decideRecord, suppressedAtSend } from './sender-logic.ts';
import type { SenderMetrics } from './sender-metrics.ts';
import type { SenderEmail, SenderStore } from './sender-store.ts';
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
  logger: Logger;
}

function resultLabel(result: AttemptResult): string {
  if (result.sendState === 'deferred') return 'deferred';
  const { type, bounce_kind } = result.event;
  if (type === 'bounced')
    return bounce_kind === 'hard' ? 'hard_bounce' : bounce_kind === 'soft' ? 'soft_bounce' : 'undetermined';
  return type;
}

export function mailSenderActorKind(deps: SenderActorDeps): ActorKind<MailOutboundRecord> {
  const log = deps.logger.child({ component: 'mail-sender' });

  async function attempt(
    email: SenderEmail,
    n: number,
    repeat: boolean,
    record: ActorRecord<MailOutboundRecord>,
  ) {
    if (repeat) {
      deps.metrics.repeats.inc();
      log.warn({ emailId: email.id, attempt: n }, 'repeating an attempt whose outcome was never stored');
    }
    const startedMs = deps.clock.nowMs();
    const { suppressed } = await deps.store.startAttempt(email.id, n, repeat, startedMs);
    email.sendState = 'sending';
    email.attempts = n;
    const ctx = {
      emailId: email.id,
      productId: email.productId,
      recipient: email.toAddress,
      attempt: n,
      retryDelaysMs: deps.retryDelaysMs,
      nowMs: startedMs,
      newEventId: randomUUID,
    };
    let result: AttemptResult;
    if (suppressed) {
      result = suppressedAtSend(ctx);
    } else {
      const message = await deps.build(email, startedMs);
      const outcome = await deps.transport.send(message);
      result = attemptResult({ ...ctx, nowMs: deps.clock.nowMs() }, outcome);
    }
    await deps.store.recordResult(email.id, result, { partition: record.partition, offset: record.offset });
    email.applied = { partition: record.partition, offset: record.offset };
    email.sendState = result.sendState;
    deps.metrics.sends.inc({ result: resultLabel(result) });
    if (result.sendState === 'done') {
      email.outcomeEvent = result.event;
      // The content is not needed any more: keep cached actors small.
      email.html = null;
      email.text = null;
      await deps.events.publish(result.event);
    }
  }

  return {
    name: MAIL_SENDER_KIND,
    async load(key: string): Promise<Actor<MailOutboundRecord>> {
      if (!isUuid(key)) throw new TerminalError(`not an email id: ${JSON.stringify(key)}`);
      const email = await deps.store.load(key);
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
