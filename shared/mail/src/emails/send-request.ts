// What a send body means once its JSON Schema (schemas/http/mail-email-send.json) passed: the
// checks a schema cannot express, each answered as a validation error naming its field, so the
// edge and the management API refuse a body alike.
import type { FieldError } from '@lattice/core';
import { HTTP_ERRORS } from '@lattice/http';
import { type Mailbox, parseMailbox } from '../addresses.ts';
import { holdsNul } from '../storable-text.ts';

/** The body as the schema admits it. */
export interface SendEmailBody {
  from: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  reply_to?: string;
  headers?: Record<string, string>;
  tags?: Array<{ name: string; value: string }>;
}

export interface SendRequest {
  from: Mailbox;
  to: Mailbox;
  replyTo: Mailbox | null;
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  tags: Array<{ name: string; value: string }>;
}

/**
 * Headers the platform writes (or that would change who receives the message or how it is
 * read): an integrator's copy would contradict ours or smuggle recipients in.
 */
const RESERVED_HEADERS = new Set(
  [
    'from',
    'to',
    'cc',
    'bcc',
    'subject',
    'reply-to',
    'sender',
    'date',
    'message-id',
    'return-path',
    'received',
    'mime-version',
    'dkim-signature',
    'list-unsubscribe',
    'list-unsubscribe-post',
    'in-reply-to',
    'references',
  ].map((h) => h.toLowerCase()),
);

const MAILBOX_MESSAGE = 'must be one email address, optionally with a display name';

/**
 * The longest display name: with its quotes, every character escaped and the longest address,
 * an address header stays under RFC 5322's 998 octets a line without folding.
 */
export const DISPLAY_NAME_MAX = 256;

/**
 * Trace and authentication headers: only the servers a message passes through write them, and a
 * receiver trusts them to say where a message came from and whether it authenticated. A
 * tenant's copy would forge that, for any domain (docs/mail.md).
 */
const TRACE_HEADERS = new Set([
  'received',
  'return-path',
  'delivered-to',
  'authentication-results',
  'dkim-signature',
  'received-spf',
]);
const TRACE_PREFIXES = ['arc-', 'resent-'];

function isTrace(lower: string): boolean {
  return TRACE_HEADERS.has(lower) || TRACE_PREFIXES.some((p) => lower.startsWith(p));
}

function isReserved(lower: string): boolean {
  return RESERVED_HEADERS.has(lower) || lower.startsWith('content-') || lower.startsWith('x-lattice-');
}

/** Throws a 400 validation_error listing every field that is wrong. */
export function checkSendBody(body: SendEmailBody): SendRequest {
  const fields: FieldError[] = [];
  const mailbox = (path: string, value: string | undefined): Mailbox | null => {
    if (value === undefined) return null;
    const parsed = parseMailbox(value);
    if (!parsed) fields.push({ path, message: MAILBOX_MESSAGE });
    else if (parsed.name.length > DISPLAY_NAME_MAX)
      fields.push({ path, message: `the display name must be at most ${DISPLAY_NAME_MAX} characters` });
    return parsed && parsed.name.length <= DISPLAY_NAME_MAX ? parsed : null;
  };
  const from = mailbox('body.from', body.from);
  const to = mailbox('body.to', body.to);
  const replyTo = mailbox('body.reply_to', body.reply_to);
  // PostgreSQL cannot store NUL in text or jsonb: refused here, by name, instead of failing later.
  for (const [path, value] of [
    ['body.from', body.from],
    ['body.to', body.to],
    ['body.subject', body.subject],
    ['body.html', body.html],
    ['body.text', body.text],
    ['body.reply_to', body.reply_to],
  ] as const) {
    if (value !== undefined && holdsNul(value) && !fields.some((f) => f.path === path))
      fields.push({ path, message: 'must not contain NUL characters' });
  }
  if (body.html === undefined && body.text === undefined)
    fields.push({ path: 'body.html', message: 'an email needs html or text (or both)' });
  const headers = body.headers ?? {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (isTrace(lower))
      fields.push({
        path: `body.headers.${name}`,
        message: 'is a trace or authentication header: only the servers a message passes through write it',
      });
    else if (isReserved(lower))
      fields.push({ path: `body.headers.${name}`, message: 'is written by the platform' });
    else if (/[\r\n]/.test(value) || holdsNul(value))
      fields.push({
        path: `body.headers.${name}`,
        message: 'must not contain line breaks or NUL characters',
      });
  }
  if (fields.length > 0 || !from || !to) throw HTTP_ERRORS.validation(fields);
  return {
    from,
    to,
    replyTo,
    subject: body.subject,
    html: body.html ?? null,
    text: body.text ?? null,
    headers,
    tags: body.tags ?? [],
  };
}
