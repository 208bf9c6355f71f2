// Test support (`@lattice/mail/testing`), never imported by production code: a DNS server
// for verification tests, email rows as the accept path writes them and webhook delivery rows
// as the fan-out and the endpoint actor leave them.
export type { TestDnsMode, TestDnsServer } from './testing/test-dns-server.ts';
export { startTestDnsServer } from './testing/test-dns-server.ts';

import { nameBasedUuid, newId } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import type { EmailStatus } from './email-state/email-state.ts';
import { readEmail } from './emails/email-reader.ts';
import type { MailHttp } from './http/mail-http.ts';
import { MAIL_ERRORS } from './mail-errors.ts';
import { messageIdFor } from './return-path.ts';
import type { WebhookDeliveryStatus } from './webhooks/endpoint-store.ts';
import { type WebhookEventName, webhookPayload } from './webhooks/webhook-events.ts';
import { testWebhookEvent } from './webhooks/webhook-test-event.ts';

export interface TestEmail {
  productId: string;
  id?: string;
  from?: string;
  to?: string;
  subject?: string;
  status?: EmailStatus;
}

/** Inserts an email row as the accept path does (the row precedes its events); returns its id. */
export async function insertTestEmail(db: DbExecutor, email: TestEmail): Promise<string> {
  const id = email.id ?? newId();
  const to = email.to ?? 'Ann <Ann@Example.org>';
  const bare = /<([^>]+)>/.exec(to)?.[1] ?? to;
  await db('mail_emails').insert({
    id,
    product_id: email.productId,
    environment: 'production',
    from_header: email.from ?? 'Shop <news@shop.example.test>',
    to_header: to,
    to_address: bare.toLowerCase(),
    subject: email.subject ?? 'Hello',
    html: '<p>Hello</p>',
    message_id: messageIdFor(id, 'shop.example.test'),
    status: email.status ?? 'queued',
  });
  return id;
}

export interface TestWebhookDelivery {
  productId: string;
  endpointId: string;
  /** Default: a new event id. */
  eventId?: string;
  /** Default `email.delivered`. */
  eventType?: WebhookEventName;
  /** Default `pending`. */
  status?: WebhookDeliveryStatus;
  /** Default 0. */
  attempts?: number;
  /** Default 5. */
  maxAttempts?: number;
  responseStatus?: number | null;
  lastError?: string | null;
  lastAttemptAt?: Date | null;
  nextAttemptAt?: Date | null;
  /** Default: the database's now. */
  createdAt?: Date;
}

/**
 * Inserts one delivery row, id by the fan-out's rule (event, endpoint); each insert gets the
 * next `seq`, so rows inserted one after another are in recording order.
 */
export async function insertTestWebhookDelivery(
  db: DbExecutor,
  d: TestWebhookDelivery,
): Promise<{ id: string; seq: number; eventId: string }> {
  const eventId = d.eventId ?? newId();
  const eventType = d.eventType ?? 'email.delivered';
  const occurredMs = d.createdAt?.getTime() ?? Date.now();
  const [row] = (await db('mail_webhook_deliveries')
    .insert({
      id: nameBasedUuid(eventId, d.endpointId),
      endpoint_id: d.endpointId,
      product_id: d.productId,
      event_id: eventId,
      event_type: eventType,
      payload: webhookPayload(testWebhookEvent(d.productId, eventType, eventId, occurredMs)),
      status: d.status ?? 'pending',
      attempts: d.attempts ?? 0,
      max_attempts: d.maxAttempts ?? 5,
      response_status: d.responseStatus ?? null,
      last_error: d.lastError ?? null,
      last_attempt_at: d.lastAttemptAt ?? null,
      next_attempt_at: d.nextAttemptAt ?? null,
      ...(d.createdAt ? { created_at: d.createdAt } : {}),
    })
    .returning(['id', 'seq'])) as { id: string; seq: string }[];
  return { id: row!.id, seq: Number(row!.seq), eventId };
}

/**
 * The mail services with nothing behind the sending side (no Kafka, no Redis): every send
 * answers 503 send_unavailable; reads work. For tests of an app that reach no send.
 */
export function createMailHttpWithoutSending(deps: { db: DbExecutor }): MailHttp {
  return {
    emails: {
      send: () => Promise.reject(MAIL_ERRORS.sendUnavailable()),
      get: async (productId, id) => {
        const email = await readEmail(deps.db, productId, id);
        if (!email) throw MAIL_ERRORS.emailNotFound();
        return email;
      },
    },
    trackingHandlers: {},
    webhookWakes: {
      publish: () => Promise.reject(new Error('no Kafka behind these mail services')),
      close: async () => {},
    },
  };
}
