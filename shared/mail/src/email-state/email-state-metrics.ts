// Counters of the email-state actor: events that changed nothing are dropped, never retried, and
// counted here (`lattice_mail_state_events_dropped_total{reason}`). Several hosts may share one
// registry (tests, the all-in-one `lattice start`), so the counter is registered once.
import type { Registry } from 'prom-client';
import { mailCounter } from '../mail-counter.ts';
import type { EmailEventDropReason } from './email-state-logic.ts';

export type EmailStateDropReason =
  | EmailEventDropReason
  /** Keyed `recipient:<address>`: matched to no email, nothing to apply to. */
  | 'unmatched'
  /** Keyed by an email id with no email row (a foreign or deleted email). */
  | 'unknown_email';

export interface EmailStateMetrics {
  dropped(reason: EmailStateDropReason, count?: number): void;
}

const NAME = 'lattice_mail_state_events_dropped_total';

export function emailStateMetrics(registry: Registry): EmailStateMetrics {
  const counter = mailCounter(
    registry,
    NAME,
    'mail.events records the email-state actor applied nothing for, by reason.',
    ['reason'],
  );
  return { dropped: (reason, count = 1) => counter.inc({ reason }, count) };
}

/** Counts in memory; what unit tests read. */
export function memoryEmailStateMetrics(): EmailStateMetrics & {
  counts: Partial<Record<EmailStateDropReason, number>>;
} {
  const counts: Partial<Record<EmailStateDropReason, number>> = {};
  return {
    counts,
    dropped(reason, count = 1) {
      counts[reason] = (counts[reason] ?? 0) + count;
    },
  };
}
