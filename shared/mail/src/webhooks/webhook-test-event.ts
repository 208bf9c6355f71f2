// The synthetic event `mail_webhook_test` delivers: shaped as a real one of its type (spec
// "Webhook event payload"), about no email of ours, so a receiver can tell it apart by its
// recipient and reason and still exercise the same parsing and signature checks.
import type { MailEventRecord } from '../events/mail-event.ts';
import type { WebhookEventName } from './webhook-events.ts';

export const TEST_EVENT_RECIPIENT = 'test@example.com';
export const TEST_EVENT_REASON = 'Test event sent by mail_webhook_test';
/** A clicked event names its link (webhookPayload); the test one points at the example domain. */
export const TEST_EVENT_LINK = 'https://example.com/';

export function testWebhookEvent(
  productId: string,
  name: WebhookEventName,
  eventId: string,
  nowMs: number,
): MailEventRecord {
  const type = name.slice('email.'.length) as MailEventRecord['type'];
  return {
    event_id: eventId,
    product_id: productId,
    email_id: null,
    type,
    recipient: TEST_EVENT_RECIPIENT,
    bounce_kind: type === 'bounced' ? 'hard' : null,
    reason: TEST_EVENT_REASON,
    provider_message_id: null,
    link: type === 'clicked' ? TEST_EVENT_LINK : null,
    occurred_at_ms: nowMs,
  };
}
