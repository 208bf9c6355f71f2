// What the email-state actor remembers of one email between events. Immutable: the pure logic
// returns a new value when something changed and the same value when nothing did, so the adapter
// knows when there is nothing to write.
import type { BounceKind, MailEventType } from '../events/mail-event.ts';

/** decisions.md "Mail (interfaces)": the email's `status`. */
export const EMAIL_STATUSES = ['queued', 'delivered', 'bounced', 'suppressed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** The newest recorded event, as `GET /emails/{id}` shows it in `last_event`. */
export interface LastEvent {
  /** Without the `email.` prefix. */
  type: MailEventType;
  occurredAtMs: number;
  bounceKind: BounceKind | null;
  reason: string | null;
}

export interface EmailState {
  readonly emailId: string;
  readonly productId: string;
  /** The email's one recipient, lower-cased (the row's to_address): what a bounce suppresses. */
  readonly recipient: string;
  readonly status: EmailStatus;
  readonly lastEvent: LastEvent | null;
  /** An `opened` event is recorded (spec rule 2: once per email). */
  readonly opened: boolean;
  /** Links with a recorded `clicked` event (once per distinct link). */
  readonly clickedLinks: ReadonlySet<string>;
  /** Ids of every recorded event: a replayed or re-produced event is applied once. */
  readonly recordedEventIds: ReadonlySet<string>;
}
