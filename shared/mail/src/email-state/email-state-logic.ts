// The email-state actor's decisions, without I/O: (state, event) → (state, effects). The rules
// are the spec's "Mail webhook events" rules 1-3 and decisions.md "Mail (interfaces)":
//   delivered    queued → delivered
//   bounced      hard: queued or delivered → bounced, and the recipient is suppressed
//                (hard_bounce, whatever the status); soft or undetermined: status unchanged
//   complained   the recipient is suppressed (complaint); status unchanged
//   suppressed   queued → suppressed (the email was not handed over)
//   opened       recorded once per email; a later open is dropped
//   clicked      recorded once per distinct link; a repeat is dropped
// A status never goes back: `bounced` and `suppressed` are final, `delivered` moves only to
// `bounced`. So events that arrive out of order (a DSN's hard bounce before the sender's own
// `delivered`, both produced concurrently) end in the same status as in order.
// `last_event` is the recorded event with the latest occurred_at; an older event arriving late is
// recorded but does not replace it (on a tie the later-applied one wins).
// The address suppressed is the email's own recipient (the row's to_address), not the event's
// `recipient`: it is what send-time checks compare, and complaint reports often redact it.
import { isUuid } from '@lattice/core';
import type { MailEventRecord } from '../events/mail-event.ts';
import type { EmailState, EmailStatus, LastEvent } from './email-state.ts';

/** Why an event changed nothing; each is counted. */
export type EmailEventDropReason =
  /** The event id was recorded already (a replay, or an event produced twice). */
  | 'duplicate_event'
  /** The email was opened already. */
  | 'repeat_open'
  /** This link was clicked already. */
  | 'repeat_click'
  /** The event names another product than the email's. */
  | 'other_product';

export type EmailStateEffect =
  /** Insert the event into mail_email_events. */
  | { type: 'record_event'; event: MailEventRecord }
  /** Add the address to the product's suppression list (kept when already listed). */
  | { type: 'suppress'; address: string; reason: 'hard_bounce' | 'complaint'; emailId: string }
  | { type: 'drop'; eventId: string; reason: EmailEventDropReason };

export interface EmailStateDecision {
  /** The same object as the input when nothing changed. */
  state: EmailState;
  effects: EmailStateEffect[];
}

/** Latest instant a JavaScript Date (and so the store) can hold. */
const MAX_TIME_MS = 8.64e15;

/** Why a record can never apply (the adapter dead-letters it), or null when it is well formed. */
export function mailEventProblem(event: MailEventRecord): string | null {
  if (!isUuid(event.event_id)) return 'event_id is not a uuid';
  if (!isUuid(event.product_id)) return 'product_id is not a uuid';
  if (event.email_id !== null && !isUuid(event.email_id)) return 'email_id is not a uuid';
  if (!Number.isSafeInteger(event.occurred_at_ms) || Math.abs(event.occurred_at_ms) > MAX_TIME_MS) {
    return 'occurred_at_ms is not a time';
  }
  if (event.type === 'bounced' && event.bounce_kind === null) return 'a bounce without bounce_kind';
  if (event.type === 'clicked' && !event.link) return 'a click without link';
  return null;
}

function nextStatus(status: EmailStatus, event: MailEventRecord): EmailStatus {
  switch (event.type) {
    case 'delivered':
      return status === 'queued' ? 'delivered' : status;
    case 'bounced':
      return event.bounce_kind === 'hard' && (status === 'queued' || status === 'delivered')
        ? 'bounced'
        : status;
    case 'suppressed':
      return status === 'queued' ? 'suppressed' : status;
    default:
      return status;
  }
}

function lastEventOf(event: MailEventRecord): LastEvent {
  return {
    type: event.type,
    occurredAtMs: event.occurred_at_ms,
    // The payload rule: bounce_kind only on a bounce, null on every other event.
    bounceKind: event.type === 'bounced' ? event.bounce_kind : null,
    reason: event.reason,
  };
}

/** Applies one well-formed event (mailEventProblem(event) === null) to its email's state. */
export function applyMailEvent(state: EmailState, event: MailEventRecord): EmailStateDecision {
  const drop = (reason: EmailEventDropReason): EmailStateDecision => ({
    state,
    effects: [{ type: 'drop', eventId: event.event_id, reason }],
  });
  if (event.product_id !== state.productId) return drop('other_product');
  if (state.recordedEventIds.has(event.event_id)) return drop('duplicate_event');
  if (event.type === 'opened' && state.opened) return drop('repeat_open');
  if (event.type === 'clicked' && state.clickedLinks.has(event.link!)) return drop('repeat_click');

  const effects: EmailStateEffect[] = [{ type: 'record_event', event }];
  const suppressFor =
    event.type === 'bounced' && event.bounce_kind === 'hard'
      ? 'hard_bounce'
      : event.type === 'complained'
        ? 'complaint'
        : null;
  if (suppressFor !== null) {
    effects.push({ type: 'suppress', address: state.recipient, reason: suppressFor, emailId: state.emailId });
  }
  const newer = state.lastEvent === null || event.occurred_at_ms >= state.lastEvent.occurredAtMs;
  const next: EmailState = {
    ...state,
    status: nextStatus(state.status, event),
    lastEvent: newer ? lastEventOf(event) : state.lastEvent,
    opened: state.opened || event.type === 'opened',
    clickedLinks:
      event.type === 'clicked' ? new Set([...state.clickedLinks, event.link!]) : state.clickedLinks,
    recordedEventIds: new Set([...state.recordedEventIds, event.event_id]),
  };
  return { state: next, effects };
}
