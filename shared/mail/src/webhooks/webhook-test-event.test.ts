import { expect } from 'chai';
import { WEBHOOK_EVENT_NAMES, webhookPayload } from './webhook-events.ts';
import { testWebhookEvent } from './webhook-test-event.ts';

describe('the test event of mail_webhook_test', () => {
  const productId = '5d0c6a4e-1b2f-4c3d-8e9f-0a1b2c3d4e5f';
  const eventId = '0b9f8a52-7c1e-4f59-9a49-2a1d5e2b7c10';
  const nowMs = Date.UTC(2026, 10, 24, 15, 0, 0);
  const occurredAt = new Date(nowMs).toISOString();

  it('is a payload of the spec’s shape for every event name, about no email', () => {
    for (const name of WEBHOOK_EVENT_NAMES) {
      const type = name.slice('email.'.length);
      const payload = JSON.parse(webhookPayload(testWebhookEvent(productId, name, eventId, nowMs)));
      expect(payload, name).to.deep.equal({
        type: name,
        timestamp: occurredAt,
        data: {
          eventId,
          emailId: null,
          type,
          recipient: 'test@example.com',
          bounceKind: name === 'email.bounced' ? 'hard' : null,
          reason: 'Test event sent by mail_webhook_test',
          providerMessageId: null,
          occurredAt,
          ...(name === 'email.clicked' ? { link: 'https://example.com/' } : {}),
        },
      });
    }
  });
});
