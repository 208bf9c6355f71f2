// Reading a report that arrived on the inbound receiver: an RFC 3464 delivery status
// notification (a bounce) or an RFC 5965 feedback report (a complaint), with the headers of the
// message it is about. Pure given the raw bytes (mailparser does the MIME work); anything that is
// neither comes back as `malformed` with the reason, never as a throw.
//
// What decides the kind is the machine-readable part found, not the top-level report-type alone:
// some MTAs label the report wrongly or send it as multipart/mixed. Sloppy MTAs that attach the
// machine-readable fields as text/plain are read too, but only inside a multipart/report that
// declares the kind, so that a person's mail quoting a bounce is never taken for one.
import type { Attachment, ParsedMail } from 'mailparser';
import { simpleParser } from 'mailparser';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import type { BounceKind } from '../events/mail-event.ts';
import {
  type FieldGroup,
  fieldGroups,
  fieldValue,
  hasField,
  headerBlock,
  reportAddress,
  withoutType,
} from './report-fields.ts';

/** One per-recipient group of a DSN. Addresses lower-cased, without their `rfc822;` type. */
export interface DsnRecipient {
  finalRecipient: string | null;
  originalRecipient: string | null;
  /** `failed`, `delayed`, `delivered`, `relayed`, `expanded` (lower-cased), or null. */
  action: string | null;
  /** The status code, `5.1.1`, or null when absent or not one. */
  status: string | null;
  /** The Diagnostic-Code without its type (`smtp;`), unfolded; null when absent. */
  diagnosticCode: string | null;
}

/** What the report quotes of the message it is about. */
export interface ReturnedHeaders {
  messageId: string | null;
  returnPath: string | null;
  /** The first address of `To`, lower-cased. */
  to: string | null;
}

interface ReportCommon {
  /** Original-Envelope-Id (the ENVID the sender gave), as written. */
  envelopeId: string | null;
  returned: ReturnedHeaders | null;
  /** Message-IDs in the report's own In-Reply-To and References (Exim names the original there). */
  referencedMessageIds: string[];
}

export interface DsnReport extends ReportCommon {
  kind: 'dsn';
  recipients: DsnRecipient[];
}

export interface ArfReport extends ReportCommon {
  kind: 'arf';
  /** Feedback-Type, lower-cased: `abuse`, `fraud`, `virus`, `other`, `not-spam`, `auth-failure`. */
  feedbackType: string;
  userAgent: string | null;
  /** The original envelope sender (our VERP address when the provider quotes it). */
  originalMailFrom: string | null;
  /** Original-Rcpt-To, else the returned message's `To`; null when redacted away. */
  recipient: string | null;
  arrivalDate: string | null;
}

export interface MalformedReport {
  kind: 'malformed';
  why: string;
}

export type ParsedReport = DsnReport | ArfReport | MalformedReport;

const STATUS_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const FEEDBACK_TYPES = new Set(['message/feedback-report']);
// message/rfc822 kept whole (ignoreEmbedded), or only its headers; the global forms are RFC 6533.
const RETURNED_TYPES = new Set([
  'message/rfc822',
  'text/rfc822-headers',
  'message/rfc822-headers',
  'message/global',
  'message/global-headers',
]);

// Feedback types that mean "this message was unwanted"; the others (not-spam, auth-failure,
// virus) are no complaint by the recipient.
export const COMPLAINT_FEEDBACK_TYPES: ReadonlySet<string> = new Set(['abuse', 'fraud', 'other']);

const PARSER_OPTIONS = {
  keepDeliveryStatus: true,
  // The returned message stays one attachment: only its header block is read.
  ignoreEmbedded: true,
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipImageLinks: true,
  skipTextLinks: true,
  checksumAlgo: false,
} as const;

export async function parseReport(raw: Buffer): Promise<ParsedReport> {
  if (raw.toString('latin1').trim() === '') return { kind: 'malformed', why: 'empty message' };
  let mail: ParsedMail;
  try {
    mail = await simpleParser(raw, PARSER_OPTIONS);
  } catch (err) {
    return { kind: 'malformed', why: `unreadable MIME: ${(err as Error).message}` };
  }
  const contentType = mail.headers.get('content-type') as
    | { value?: string; params?: Record<string, string> }
    | undefined;
  const isReport = contentType?.value?.toLowerCase() === 'multipart/report';
  const reportType = isReport ? (contentType?.params?.['report-type'] ?? '').toLowerCase() : '';
  const parts = mail.attachments;
  const partsOf = (types: Set<string>) => parts.filter((a) => types.has(a.contentType.toLowerCase()));
  const returnedPart = partsOf(RETURNED_TYPES)[0];
  const common: ReportCommon = {
    envelopeId: null,
    returned: returnedPart ? returnedHeaders(returnedPart) : null,
    referencedMessageIds: referencedIds(mail),
  };

  const feedback = partsOf(FEEDBACK_TYPES).map(textOf);
  const status = partsOf(STATUS_TYPES).map(textOf);
  if (feedback.length > 0 || (status.length === 0 && reportType === 'feedback-report')) {
    const sources = feedback.length > 0 ? feedback : sloppyTexts(mail);
    return arfReport(sources, common);
  }
  if (status.length > 0 || reportType === 'delivery-status') {
    const sources = status.length > 0 ? status : sloppyTexts(mail);
    return dsnReport(sources, common);
  }
  return { kind: 'malformed', why: 'no delivery-status or feedback-report part' };
}

/**
 * The kind of bounce a DSN recipient reports (decisions.md "Mail"): `Action: failed` with a 5.x.x
 * status is hard, with 4.x.x soft; without a usable status the Diagnostic-Code's SMTP reply code
 * decides (5xx, 4xx), else `undetermined`. Null for every other action: nothing happened yet.
 */
export function dsnBounceKind(recipient: DsnRecipient): BounceKind | null {
  if (recipient.action !== 'failed') return null;
  const statusClass = recipient.status?.[0];
  if (statusClass === '5') return 'hard';
  if (statusClass === '4') return 'soft';
  const replyClass = /^([45])\d\d(?:[ -]|$)/.exec(recipient.diagnosticCode ?? '')?.[1];
  if (replyClass === '5') return 'hard';
  if (replyClass === '4') return 'soft';
  return 'undetermined';
}

function textOf(part: Attachment): string {
  return part.content.toString('utf8');
}

/** Inline text parts and text/plain attachments: where a sloppy MTA leaves the report fields. */
function sloppyTexts(mail: ParsedMail): string[] {
  const texts = mail.text ? [mail.text] : [];
  for (const a of mail.attachments) if (a.contentType.toLowerCase() === 'text/plain') texts.push(textOf(a));
  return texts;
}

function dsnReport(sources: string[], common: ReportCommon): ParsedReport {
  const recipients: DsnRecipient[] = [];
  let envelopeId: string | null = null;
  for (const group of sources.flatMap(fieldGroups)) {
    envelopeId ??= fieldValue(group, 'original-envelope-id');
    if (!hasField(group, 'final-recipient') && !hasField(group, 'action')) continue;
    for (const record of splitRecipients(group)) recipients.push(dsnRecipient(record));
  }
  if (recipients.length === 0) return { kind: 'malformed', why: 'a delivery status without recipients' };
  return { kind: 'dsn', recipients, ...common, envelopeId };
}

// Recipients are meant to be separated by blank lines; some MTAs forget them. A second
// Final-Recipient in one group starts the next recipient.
function splitRecipients(group: FieldGroup): FieldGroup[] {
  const records: FieldGroup[] = [];
  let current: FieldGroup = [];
  for (const field of group) {
    if (field.name === 'final-recipient' && hasField(current, 'final-recipient')) {
      records.push(current);
      current = [];
    }
    current.push(field);
  }
  records.push(current);
  return records;
}

function dsnRecipient(group: FieldGroup): DsnRecipient {
  const action = /^[A-Za-z]+/.exec(fieldValue(group, 'action') ?? '')?.[0]?.toLowerCase() ?? null;
  const status = /^[245]\.\d{1,3}\.\d{1,3}/.exec(fieldValue(group, 'status') ?? '')?.[0] ?? null;
  const diagnostic = fieldValue(group, 'diagnostic-code');
  return {
    finalRecipient: reportAddress(fieldValue(group, 'final-recipient')),
    originalRecipient: reportAddress(fieldValue(group, 'original-recipient')),
    action,
    status,
    diagnosticCode: diagnostic === null ? null : withoutType(diagnostic) || null,
  };
}

function arfReport(sources: string[], common: ReportCommon): ParsedReport {
  const group = sources.flatMap(fieldGroups).find((g) => hasField(g, 'feedback-type'));
  const feedbackType = group ? /^[A-Za-z-]+/.exec(fieldValue(group, 'feedback-type') ?? '')?.[0] : undefined;
  if (!group || !feedbackType) return { kind: 'malformed', why: 'a feedback report without Feedback-Type' };
  return {
    kind: 'arf',
    feedbackType: feedbackType.toLowerCase(),
    userAgent: fieldValue(group, 'user-agent'),
    originalMailFrom: reportAddress(fieldValue(group, 'original-mail-from')),
    recipient: reportAddress(fieldValue(group, 'original-rcpt-to')) ?? common.returned?.to ?? null,
    // Received-Date is the name of early drafts, still written by some feedback loops.
    arrivalDate: fieldValue(group, 'arrival-date') ?? fieldValue(group, 'received-date'),
    ...common,
    envelopeId: fieldValue(group, 'original-envelope-id'),
  };
}

function returnedHeaders(part: Attachment): ReturnedHeaders {
  const block = headerBlock(textOf(part));
  return {
    messageId: fieldValue(block, 'message-id'),
    returnPath: reportAddress(fieldValue(block, 'return-path')),
    to: firstAddress(fieldValue(block, 'to')),
  };
}

function firstAddress(value: string | null): string | null {
  if (value === null) return null;
  const first = addressparser(value, { flatten: true })[0];
  return reportAddress(first?.address ?? null);
}

function referencedIds(mail: ParsedMail): string[] {
  const refs = [mail.inReplyTo ?? [], mail.references ?? []].flat();
  return refs.flatMap((r) => r.split(/\s+/)).filter((r) => r.length > 0);
}
