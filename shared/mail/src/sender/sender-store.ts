// What the mail sender reads and writes of an email: its content and the send_* columns it owns
// (migration 0007: the email-state actor owns status and last_event_*, never this one).
import type { AppliedPosition } from '@lattice/kafka';
import type { MailEventRecord } from '../events/mail-event.ts';
import type { AttemptResult, SendState } from './sender-logic.ts';

export interface SenderEmail {
  id: string;
  productId: string;
  environment: 'production' | 'development';
  domainId: string | null;
  fromHeader: string;
  toHeader: string;
  toAddress: string;
  subject: string;
  html: string | null;
  text: string | null;
  replyTo: string | null;
  headers: Record<string, string>;
  trackOpens: boolean;
  trackClicks: boolean;
  messageId: string;
  sendState: SendState;
  attempts: number;
  /** The event of the final outcome once stored (re-published after a crash; see the actor). */
  outcomeEvent: MailEventRecord | null;
  applied: AppliedPosition | null;
}

export interface SenderStore {
  /** The email with its content; undefined when the row is gone (its product was deleted). */
  load(emailId: string): Promise<SenderEmail | undefined>;
  /**
   * Marks attempt `attempt` started (send_state sending), counting a repeat, and answers whether
   * the recipient is suppressed now (read in the same statement).
   */
  startAttempt(
    emailId: string,
    attempt: number,
    repeat: boolean,
    nowMs: number,
  ): Promise<{ suppressed: boolean }>;
  /** Stores an attempt's result with the record's position, in one statement. */
  recordResult(emailId: string, result: AttemptResult, position: AppliedPosition): Promise<void>;
  /** A record that changed nothing (a stale copy): only the position. */
  markApplied(emailId: string, position: AppliedPosition): Promise<void>;
}
