// Records on `mail.outbound` (schemas/avro/mail-outbound.avsc): an email id to hand over, and
// which attempt this is. The content stays in PostgreSQL, so a record is a few dozen bytes
// whatever the body (decisions.md: far below Kafka's 1 MiB record limit).
import { nameBasedUuid } from '@lattice/core';
import { type Codec, loadCodec, TOPIC_CATALOG } from '@lattice/kafka';

export interface MailOutboundRecord {
  email_id: string;
  product_id: string;
  /** 1 for the first handover; the retry job produces attempt n + 1 after a deferral. */
  attempt: number;
  accepted_at_ms: number;
}

export function mailOutboundCodec(): Codec<MailOutboundRecord> {
  return loadCodec<MailOutboundRecord>(TOPIC_CATALOG.mailOutbound.schema);
}

/**
 * The id of an event that may be produced twice by design (a crash between a commit and its
 * produce, repaired by a sweep): the copies share the id, and every consumer drops the second.
 */
export function derivedEventId(emailId: string, purpose: string): string {
  return nameBasedUuid(purpose, emailId);
}
