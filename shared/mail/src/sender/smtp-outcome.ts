// What a smart host's answer means (decisions.md "Mail"). Only the recipient's own answer, its
// RCPT or DATA reply, classifies a bounce: 2xx delivered, 5xx a hard bounce, 4xx worth another
// attempt and a soft bounce when the attempts run out. Everything else (connection refused or
// lost, timeouts, 421 "service closing", authentication, a rejected MAIL FROM) says nothing
// about the recipient: retried like a 4xx, and when the attempts run out an `undetermined`
// bounce, never a suppression.

import { storableText } from '../storable-text.ts';

export type SmtpOutcome =
  | { kind: 'accepted'; providerMessageId: string }
  | { kind: 'rejected'; permanent: boolean; code: number; reason: string }
  | { kind: 'failed'; reason: string };

/** The queue id of `250 2.0.0 Ok: queued as 4XyZ12`, else the reply's text (decisions.md). */
export function providerMessageIdOf(response: string): string {
  const m = /queued as ([^\s;,]+)/i.exec(response);
  return storableText(m ? m[1]! : response.trim()).slice(0, 1000);
}

interface SmtpError {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/** The outcome of one handover, from nodemailer's info (success) or error. */
export function smtpOutcomeOf(result: { response: string } | { error: unknown }): SmtpOutcome {
  if ('response' in result)
    return { kind: 'accepted', providerMessageId: providerMessageIdOf(result.response) };
  const err = (result.error ?? {}) as SmtpError;
  const code = err.responseCode;
  const recipientsAnswer = err.command === 'RCPT TO' || err.command === 'DATA';
  if (recipientsAnswer && typeof code === 'number' && code >= 400 && code < 600 && code !== 421) {
    return {
      kind: 'rejected',
      permanent: code >= 500,
      code,
      reason: storableText((err.response ?? `${code}`).trim()).slice(0, 1000),
    };
  }
  const reason = err.response
    ? `${err.command ?? 'SMTP'}: ${err.response.trim()}`
    : `${err.code ?? 'ERROR'}: ${err.message ?? 'failed'}`;
  return { kind: 'failed', reason: storableText(reason).slice(0, 1000) };
}
