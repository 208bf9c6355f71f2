// How an asynchronous bounce finds its email again. Each message is sent with a VERP envelope
// sender on the domain's return-path subdomain, `bounce+<email id>@send.<domain>` (the MX and
// SPF records of `send.<domain>` are among the records a domain publishes), so a DSN arrives
// addressed to the email it is about. Its Message-ID, `<email id>@<domain>`, is the fallback
// when a report quotes the original headers but reached us some other way (ARF complaints).
import { isUuid } from '@lattice/core';

/** The label of the return-path subdomain, as Resend and Postmark use one. */
export const RETURN_PATH_LABEL = 'send';

export function returnPathDomain(domain: string): string {
  return `${RETURN_PATH_LABEL}.${domain}`;
}

/** The envelope sender (MAIL FROM, Return-Path) of an email. */
export function verpAddress(emailId: string, domain: string): string {
  return `bounce+${emailId}@${returnPathDomain(domain)}`;
}

/** The email id a VERP address carries, or null (case-insensitive, any domain). */
export function emailIdFromVerp(address: string): string | null {
  const m = /^bounce\+([0-9a-f-]{36})@/i.exec(address.trim().replace(/^<|>$/g, ''));
  return m && isUuid(m[1]!.toLowerCase()) ? m[1]!.toLowerCase() : null;
}

/** The Message-ID header value of an email: the same on every attempt (receivers deduplicate by it). */
export function messageIdFor(emailId: string, domain: string): string {
  return `<${emailId}@${domain}>`;
}

/** The email id a Message-ID of ours carries, or null. */
export function emailIdFromMessageId(messageId: string): string | null {
  const m = /^<?([0-9a-f-]{36})@[^>]+>?$/i.exec(messageId.trim());
  return m && isUuid(m[1]!.toLowerCase()) ? m[1]!.toLowerCase() : null;
}
