// Records on `mail.outbound` (schemas/avro/mail-outbound.avsc): an email id to hand over, and
// which attempt this is. The content stays in PostgreSQL, so a record is a few dozen bytes
// whatever the body (decisions.md: far below Kafka's 1 MiB record limit).
import { createHash } from 'node:crypto';
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
 * A UUID-shaped id derived from an email id and what the event is, for events that may be
 * produced twice by design (a crash between a commit and its produce, repaired by a sweep): the
 * copies share the id, and every consumer drops the second.
 */
export function derivedEventId(emailId: string, purpose: string): string {
  const h = createHash('sha256').update(`${purpose}:${emailId}`).digest('hex');
  // Version 8 (custom) and the RFC 9562 variant: a valid UUID that no generator also makes.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
