// The event names an endpoint subscribes to and the body of a delivery (spec "Webhook event
// payload"): built once per event by the fan-out and stored with each delivery, so every attempt
// of every endpoint sends (and signs) the same bytes.
import { MAIL_EVENT_TYPES, type MailEventRecord, type MailEventType } from '../events/mail-event.ts';

export const WEBHOOK_EVENT_NAMES = MAIL_EVENT_TYPES.map((t) => `email.${t}` as const);
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

export function webhookEventName(type: MailEventType): WebhookEventName {
  return `email.${type}`;
}

export function isWebhookEventName(value: string): value is WebhookEventName {
  return (WEBHOOK_EVENT_NAMES as readonly string[]).includes(value);
}

/** The JSON body of a delivery of `event`. */
export function webhookPayload(event: MailEventRecord): string {
  const occurredAt = new Date(event.occurred_at_ms).toISOString();
  return JSON.stringify({
    type: webhookEventName(event.type),
    timestamp: occurredAt,
    data: {
      eventId: event.event_id,
      emailId: event.email_id,
      type: event.type,
      recipient: event.recipient,
      bounceKind: event.type === 'bounced' ? event.bounce_kind : null,
      reason: event.reason,
      providerMessageId: event.provider_message_id,
      occurredAt,
      // Beyond the spec's fields, as Resend and Postmark do: which link a click followed.
      ...(event.type === 'clicked' && event.link !== null ? { link: event.link } : {}),
    },
  });
}
