// The mail platform of the mail tests (management, edge, actors over real services) with webhook
// delivery on test timings, plus what webhook tests do again and again: endpoints made through
// the management API, mail events published straight onto `mail.events` (the fan-out's input),
// and the delivery log read back.
import { newId, sleep, type WebhookConfig } from '@lattice/core';
import { createRecordProducer, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import {
  createMailEventPublisher,
  type MailEventPublisher,
  type MailEventRecord,
  type MailEventType,
} from '@lattice/mail';
import { type MailPlatform, type MailPlatformOptions, startMailPlatform } from '../mail/mail-platform.ts';

export interface WebhookEndpointAnswer {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  created_at: string;
  secret?: string;
}

export interface DeliveryAnswer {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_attempt_at: string | null;
  response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface WebhookPlatform extends MailPlatform {
  /** Creates an endpoint (201 expected) and returns it with its secret. */
  endpoint(
    url: string,
    events?: string[],
    extra?: Record<string, unknown>,
  ): Promise<Required<WebhookEndpointAnswer>>;
  /** Publishes a mail event of the product (durably in Kafka when it resolves). */
  publish(type: MailEventType, over?: Partial<MailEventRecord>): Promise<MailEventRecord>;
  /** The endpoint's delivery log, newest first (every page). */
  deliveries(endpointId: string): Promise<DeliveryAnswer[]>;
  /** Polls the delivery log until `done` holds (20 s at most by default). */
  waitForDeliveries(
    endpointId: string,
    done: (d: DeliveryAnswer[]) => boolean,
    timeoutMs?: number,
  ): Promise<DeliveryAnswer[]>;
}

export interface WebhookPlatformOptions extends MailPlatformOptions {
  webhooks?: Partial<WebhookConfig>;
}

export async function startWebhookPlatform(opts: WebhookPlatformOptions): Promise<WebhookPlatform> {
  const p = await startMailPlatform({
    // Other runs' deliveries in the shared database are not this platform's to wake.
    ownProductOnly: true,
    ...opts,
    config: {
      ...opts.config,
      webhooks: {
        retryDelaysMs: [200, 200, 200, 200],
        timeoutMs: 2_000,
        allowPrivateTargets: true,
        ...opts.webhooks,
      },
    },
  });
  const events: MailEventPublisher = createMailEventPublisher({
    producer: () => createRecordProducer(p.shared.kafka('webhook-test-events')),
    topic: topicName(p.config.kafkaTopicPrefix, TOPIC_CATALOG.mailEvents.name),
    logger: p.shared.logger,
  });

  async function deliveries(endpointId: string): Promise<DeliveryAnswer[]> {
    const all: DeliveryAnswer[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        status: number;
        text: string;
        json: { data: DeliveryAnswer[]; next_cursor: string | null };
      } = await p.call(
        'GET',
        `/mail/webhooks/${endpointId}/deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        p.product.ownerToken,
      );
      if (page.status !== 200) throw new Error(`deliveries: ${page.status} ${page.text}`);
      all.push(...page.json.data);
      cursor = page.json.next_cursor;
    } while (cursor);
    return all;
  }

  const closePlatform = p.close;
  return Object.assign(p, {
    async endpoint(url: string, events = ['email.delivered'], extra: Record<string, unknown> = {}) {
      const made = await p.call<Required<WebhookEndpointAnswer>>(
        'POST',
        '/mail/webhooks',
        p.product.ownerToken,
        {
          url,
          events,
          ...extra,
        },
      );
      if (made.status !== 201) throw new Error(`endpoint: ${made.status} ${made.text}`);
      return made.json;
    },
    async publish(type: MailEventType, over: Partial<MailEventRecord> = {}) {
      const event: MailEventRecord = {
        event_id: newId(),
        product_id: p.product.productId,
        email_id: newId(),
        type,
        recipient: 'ann@example.org',
        bounce_kind: type === 'bounced' ? 'hard' : null,
        reason: type === 'bounced' ? '550 5.1.1 user unknown' : null,
        provider_message_id: type === 'opened' || type === 'clicked' ? null : 'queue-1',
        link: type === 'clicked' ? 'https://shop.example/sale' : null,
        occurred_at_ms: Date.now(),
        ...over,
      };
      await events.publish(event);
      return event;
    },
    deliveries,
    async waitForDeliveries(endpointId: string, done: (d: DeliveryAnswer[]) => boolean, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = await deliveries(endpointId);
        if (done(got)) return got;
        if (Date.now() > deadline) throw new Error(`deliveries never got there: ${JSON.stringify(got)}`);
        await sleep(50);
      }
    },
    close: async () => {
      await events.close();
      await closePlatform();
    },
  });
}
