// Mail events on `mail.events` (schemas/avro/mail-event.avsc): everything that happens to an
// email, produced by the accept path (suppressed), the mail sender (delivered, bounced,
// suppressed), the inbound receiver (bounced by DSN, complained) and the edge's tracking routes
// (opened, clicked). The email-state actor applies them per email; webhooks fan them out.
// Keyed by email id, so one email's events are applied in order by one writer; an event that
// could not be matched to an email is keyed by its recipient.
import {
  type Codec,
  createGroupCommitPublisher,
  type GroupCommitPublisher,
  loadCodec,
  TOPIC_CATALOG,
} from '@lattice/kafka';

export const MAIL_EVENT_TYPES = [
  'delivered',
  'bounced',
  'complained',
  'suppressed',
  'opened',
  'clicked',
] as const;
export type MailEventType = (typeof MAIL_EVENT_TYPES)[number];
export type BounceKind = 'hard' | 'soft' | 'undetermined';

/** The Avro record, field for field. */
export interface MailEventRecord {
  event_id: string;
  product_id: string;
  email_id: string | null;
  type: MailEventType;
  recipient: string;
  bounce_kind: BounceKind | null;
  reason: string | null;
  provider_message_id: string | null;
  /** The clicked URL (clicked only). */
  link: string | null;
  occurred_at_ms: number;
}

export function mailEventCodec(): Codec<MailEventRecord> {
  return loadCodec<MailEventRecord>(TOPIC_CATALOG.mailEvents.schema);
}

/** The record key: the email's id, or the recipient for an event matched to no email. */
export function mailEventKey(event: Pick<MailEventRecord, 'email_id' | 'recipient'>): string {
  return event.email_id ?? `recipient:${event.recipient}`;
}

export interface MailEventPublisher {
  /**
   * Resolves once the event is durably in Kafka. `requestId`: the HTTP request the event comes
   * from, first or originally (a send's outcome keeps the send's), as the record's header.
   */
  publish(event: MailEventRecord, requestId?: string): Promise<void>;
  close(): Promise<void>;
}

/** Events through a group-commit publisher (opts as for createGroupCommitPublisher). */
export function createMailEventPublisher(
  opts: Omit<Parameters<typeof createGroupCommitPublisher<MailEventRecord>>[0], 'codec' | 'what'>,
): MailEventPublisher {
  const inner: GroupCommitPublisher<MailEventRecord> = createGroupCommitPublisher({
    ...opts,
    codec: mailEventCodec(),
    what: 'mail events',
  });
  return {
    publish: (event, requestId) => inner.publish(mailEventKey(event), event, requestId),
    close: () => inner.close(),
  };
}
