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

/** The bodies, read for each attempt and never cached (up to 1 MiB each). */
export interface EmailContent {
  html: string | null;
  text: string | null;
}

/** Who started an attempt: a later write of its result must still find it so (fencing). */
export interface AttemptFence {
  attempt: number;
  startedAt: Date;
}

export type StartedAttempt =
  | { started: true; fence: AttemptFence; suppressed: boolean }
  /** The row is gone, or it is no longer in the state this actor saw (another owner moved it). */
  | { started: false };

export interface SenderStore {
  /** The email without its bodies; undefined when the row is gone (its product was deleted). */
  load(emailId: string): Promise<SenderEmail | undefined>;
  content(emailId: string): Promise<EmailContent | undefined>;
  /**
   * Marks attempt `attempt` started (send_state sending), counting a repeat, if the row is still
   * as `seen` says; answers whether the recipient is suppressed now (read in the same statement).
   */
  startAttempt(
    emailId: string,
    seen: { sendState: SendState; attempts: number },
    attempt: number,
    repeat: boolean,
    nowMs: number,
  ): Promise<StartedAttempt>;
  /**
   * Stores an attempt's result with the record's position, in one statement, if the attempt is
   * still the one `fence` started; false when another owner took the email over meanwhile.
   */
  recordResult(
    emailId: string,
    fence: AttemptFence,
    result: AttemptResult,
    position: AppliedPosition,
  ): Promise<boolean>;
  /** A record that changed nothing (a stale copy): only the position. */
  markApplied(emailId: string, position: AppliedPosition): Promise<void>;
}
