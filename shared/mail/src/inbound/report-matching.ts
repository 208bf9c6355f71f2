// From a parsed report to the events it means. A report is matched to the email it is about by
// the ids it carries, most robust first (return-path.ts): the VERP address the report was sent to,
// the Original-Envelope-Id, the VERP envelope sender a feedback report quotes, the returned
// headers' Message-ID, their Return-Path, and last the report's own References. The first id
// naming an existing email wins. An email has exactly one recipient, so a report gives at most
// one event, and its recipient is always the email's own.
import { isUuid, nameBasedUuid } from '@lattice/core';
import type { MailEventRecord } from '../events/mail-event.ts';
import { emailIdFromMessageId, emailIdFromVerp } from '../return-path.ts';
import { storableOrNull } from '../storable-text.ts';
import type { ReportEmailLookup, ReportedEmail } from './report-email-lookup.ts';
import {
  type ArfReport,
  COMPLAINT_FEEDBACK_TYPES,
  type DsnReport,
  dsnBounceKind,
  type ParsedReport,
} from './report-parser.ts';

/** How the receiver settled a message (the `outcome` label of its counter). */
export type InboundOutcome =
  | 'bounce'
  | 'complaint'
  | 'unmatched'
  | 'malformed'
  | 'too_large'
  | 'ignored'
  | 'deferred';

export interface ReportDecision {
  outcome: Extract<InboundOutcome, 'bounce' | 'complaint' | 'unmatched' | 'malformed' | 'ignored'>;
  events: MailEventRecord[];
  /** The matched email, when there is one. */
  emailId: string | null;
  /** Why nothing was produced (for the log line), '' when events were. */
  why: string;
}

export interface DecideReportInput {
  report: ParsedReport;
  /** RCPT TO addresses of the SMTP envelope. */
  envelopeRecipients: string[];
  lookup: ReportEmailLookup;
  nowMs: number;
  /** SHA-256 hex of the raw message: makes the event id of a retried delivery the same. */
  messageDigest: string;
}

/** A reason (Diagnostic-Code) is what a server wrote; it is kept to this many characters. */
export const MAX_REASON_CHARS = 1000;

export async function decideReport(input: DecideReportInput): Promise<ReportDecision> {
  const { report } = input;
  if (report.kind === 'malformed') return nothing('malformed', null, report.why);
  if (report.kind === 'dsn' && !report.recipients.some((r) => dsnBounceKind(r) !== null)) {
    return nothing('ignored', null, 'no recipient with Action: failed');
  }
  if (report.kind === 'arf' && !COMPLAINT_FEEDBACK_TYPES.has(report.feedbackType)) {
    return nothing('ignored', null, `feedback type ${report.feedbackType} is no complaint`);
  }
  const candidates = candidateEmailIds(report, input.envelopeRecipients);
  if (candidates.length === 0) return nothing('unmatched', null, 'no email id in the report');
  const found = new Map((await input.lookup.find(candidates)).map((e) => [e.id, e]));
  const email = candidates.map((id) => found.get(id)).find((e) => e !== undefined);
  if (!email) return nothing('unmatched', null, 'no email with the ids in the report');
  return report.kind === 'dsn' ? bounce(report, email, input) : complaint(report, email, input);
}

/** The email ids a report carries, most robust first, without repeats. */
export function candidateEmailIds(report: DsnReport | ArfReport, envelopeRecipients: string[]): string[] {
  const ids = [
    ...envelopeRecipients.map(emailIdFromVerp),
    envelopeIdOf(report.envelopeId),
    report.kind === 'arf' && report.originalMailFrom ? emailIdFromVerp(report.originalMailFrom) : null,
    report.returned?.messageId ? emailIdFromMessageId(report.returned.messageId) : null,
    report.returned?.returnPath ? emailIdFromVerp(report.returned.returnPath) : null,
    ...report.referencedMessageIds.map(emailIdFromMessageId),
  ];
  return [...new Set(ids.filter((id): id is string => id !== null))];
}

/** An ENVID is the email id itself when the sender set one, or one of our addresses or ids. */
function envelopeIdOf(envelopeId: string | null): string | null {
  if (envelopeId === null) return null;
  const value = envelopeId.trim().toLowerCase();
  if (isUuid(value)) return value;
  return emailIdFromVerp(value) ?? emailIdFromMessageId(value);
}

// A DSN may list recipients of other messages an MTA batched, or an address a forward led to;
// only the email's own recipient (as Final- or Original-Recipient) is a bounce of this email.
function bounce(report: DsnReport, email: ReportedEmail, input: DecideReportInput): ReportDecision {
  const ours = report.recipients.find(
    (r) =>
      dsnBounceKind(r) !== null &&
      (r.finalRecipient === email.toAddress || r.originalRecipient === email.toAddress),
  );
  if (!ours) return nothing('unmatched', email.id, 'the failed recipient is not the email’s recipient');
  const event = eventFor(email, input, {
    type: 'bounced',
    bounce_kind: dsnBounceKind(ours),
    reason: clip(ours.diagnosticCode),
  });
  return { outcome: 'bounce', events: [event], emailId: email.id, why: '' };
}

// Feedback loops redact or rewrite the recipient (RFC 6590), so the report's recipient is not
// compared: the message it quotes had one recipient, the email's.
function complaint(report: ArfReport, email: ReportedEmail, input: DecideReportInput): ReportDecision {
  const event = eventFor(email, input, {
    type: 'complained',
    bounce_kind: null,
    reason: report.feedbackType,
  });
  return { outcome: 'complaint', events: [event], emailId: email.id, why: '' };
}

function eventFor(
  email: ReportedEmail,
  input: DecideReportInput,
  what: Pick<MailEventRecord, 'type' | 'bounce_kind' | 'reason'>,
): MailEventRecord {
  return {
    event_id: reportEventId(input.messageDigest, email.id, what.type),
    product_id: email.productId,
    email_id: email.id,
    recipient: email.toAddress,
    provider_message_id: email.providerMessageId,
    link: null,
    occurred_at_ms: input.nowMs,
    ...what,
    // Report text is attacker-chosen: nothing in it may be unstorable (a NUL would stall the
    // email-state actor's partition).
    reason: storableOrNull(what.reason),
  };
}

/** The event id of a report: the same report about the same email gives the same id. */
export function reportEventId(messageDigest: string, emailId: string, type: string): string {
  return nameBasedUuid(messageDigest, emailId, type);
}

function clip(reason: string | null): string | null {
  if (reason === null || reason.length <= MAX_REASON_CHARS) return reason;
  return `${reason.slice(0, MAX_REASON_CHARS - 1)}…`;
}

function nothing(outcome: ReportDecision['outcome'], emailId: string | null, why: string): ReportDecision {
  return { outcome, events: [], emailId, why };
}
