// Standard Webhooks signing (spec "Delivery request"): HMAC-SHA256 over
// `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed by the base64-decoded part of the
// `whsec_` secret. Each attempt signs afresh with its own timestamp; the id stays the same.
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks asks for 24 to 64 bytes; 32 as Svix mints them. */
const SECRET_BYTES = 32;

export function mintWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

export function webhookSecretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export interface WebhookSignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signWebhook(
  key: Buffer,
  deliveryId: string,
  timestampSeconds: number,
  body: string,
): WebhookSignatureHeaders {
  const timestamp = String(Math.floor(timestampSeconds));
  const mac = createHmac('sha256', key).update(`${deliveryId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': deliveryId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}

/** The purpose of the keyring key that seals endpoint secrets at rest. */
export const WEBHOOK_SECRET_PURPOSE = 'mail-webhook-secret';
