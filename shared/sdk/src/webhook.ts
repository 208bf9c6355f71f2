// Verifying a mail webhook delivery (docs/webhooks.md "Verifying the signature"), the Standard
// Webhooks way: `webhook-signature` holds space-separated `v1,<base64>` entries, each an
// HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` keyed by the base64-decoded part of
// the endpoint's `whsec_` secret; any one matching (compared in constant time) verifies, and a
// timestamp further than the tolerance from now, either way, is refused.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.ts';
import type { MailWebhookCommonEvent } from './generated/schema-types.ts';

/** A delivery's body (docs/webhooks.md "Receiving webhooks"). */
export interface WebhookEvent {
  type: MailWebhookCommonEvent;
  /** When the event occurred (ISO 8601). */
  timestamp: string;
  data: {
    eventId: string;
    /** Null for a bounce or complaint report no sent email matched. */
    emailId: string | null;
    type: MailWebhookCommonEvent extends `email.${infer Kind}` ? Kind : never;
    recipient: string;
    /** `email.bounced` only; null otherwise. */
    bounceKind: 'hard' | 'soft' | 'undetermined' | null;
    reason: string | null;
    /** Null for an email never handed over (suppressed) and for opens and clicks. */
    providerMessageId: string | null;
    occurredAt: string;
    /** `email.clicked` only: the URL the recipient followed. */
    link?: string;
  };
}

/** Request headers as Node (`req.headers`), express, fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders =
  | Headers
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way; default 300 s. */
  toleranceSeconds?: number;
  /** The current time in ms (tests). */
  nowMs?: number;
}

const SECRET_PREFIX = 'whsec_';

/**
 * The delivery's parsed body, once its signature verifies; throws WebhookVerificationError
 * otherwise. `rawBody` must be the bytes as received (not `JSON.stringify` of a parsed body).
 */
export function verifyWebhook<T = WebhookEvent>(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array | ArrayBuffer,
  { toleranceSeconds = 300, nowMs = Date.now() }: VerifyWebhookOptions = {},
): T {
  const key = secretKey(secret);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook headers');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const nowSeconds = Math.floor(nowMs / 1000);
  const sentSeconds = Number(timestamp);
  if (nowSeconds - sentSeconds > toleranceSeconds)
    throw new WebhookVerificationError('webhook timestamp too old');
  if (sentSeconds - nowSeconds > toleranceSeconds)
    throw new WebhookVerificationError('webhook timestamp in the future');

  const body = Buffer.from(rawBody instanceof ArrayBuffer ? new Uint8Array(rawBody) : rawBody);
  const expected = Buffer.from(
    createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64'),
  );
  // Compared as the base64 text, as sent: a decoder would forgive characters a signature cannot have.
  const matched = signatures.split(' ').some((entry) => {
    const comma = entry.indexOf(',');
    if (comma === -1 || entry.slice(0, comma) !== 'v1') return false;
    const given = Buffer.from(entry.slice(comma + 1));
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matched) throw new WebhookVerificationError('no matching signature');
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new WebhookVerificationError('the webhook secret is empty');
  return key;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (headers as { get(name: string): string | null | undefined }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : (value as string | undefined);
}
