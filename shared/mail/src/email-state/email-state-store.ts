// Durable state of email-state actors: the email row's status and last_event_* columns, the
// recorded events (mail_email_events) and the suppressions they cause. A commit writes all of it
// and the applied Kafka position (state_partition, state_offset) in one transaction, and only if
// the stored position is still the one this actor loaded or last wrote: a stale owner after a
// rebalance can never interleave, and the position never moves backwards. The email row itself
// is inserted by the accept path; its send_* columns belong to the mail sender.
import type { AppliedPosition } from '@lattice/kafka';
import type { MailEventRecord } from '../events/mail-event.ts';
import type { EmailState } from './email-state.ts';

export interface StoredEmailState {
  state: EmailState;
  /** Null until the actor first wrote the row. */
  applied: AppliedPosition | null;
}

export interface EmailStateSuppression {
  address: string;
  reason: 'hard_bounce' | 'complaint';
  emailId: string;
}

export interface EmailStateCommit {
  emailId: string;
  /** The position the row must still hold (null: the actor never wrote it). */
  expected: AppliedPosition | null;
  /** Its status and last event are written; the rest is derived from `events`. */
  state: EmailState;
  applied: AppliedPosition;
  /** Events to record, in the order they were applied. */
  events: readonly MailEventRecord[];
  suppressions: readonly EmailStateSuppression[];
}

/** The stored position was not the expected one (or the row is gone): nothing was written. */
export class EmailStateFencedError extends Error {
  constructor(emailId: string) {
    super(`email ${emailId} was written by another owner, or deleted`);
    this.name = 'EmailStateFencedError';
  }
}

export interface EmailStateStore {
  /** Null when no email row has this id (a foreign or deleted email). */
  load(emailId: string): Promise<StoredEmailState | null>;
  /** Throws EmailStateFencedError when the expected position no longer holds. */
  commit(commit: EmailStateCommit): Promise<void>;
}
