// Records on `mail.webhook-deliveries` (schemas/avro/webhook-delivery.avsc), keyed by endpoint:
// a delivery is recorded in PostgreSQL first, then this record wakes the actor that owns the
// endpoint so the delivery is attempted at once. A lost wake only delays: the actors role's wake
// sweep finds due pending deliveries without one.
import {
  type Codec,
  createGroupCommitPublisher,
  type GroupCommitPublisher,
  type GroupCommitPublisherOptions,
  loadCodec,
  TOPIC_CATALOG,
} from '@lattice/kafka';

/** The Avro record, field for field. */
export interface WebhookDeliveryRecord {
  delivery_id: string;
  endpoint_id: string;
  product_id: string;
  event_type: string;
  seq: number;
  recorded_at_ms: number;
}

export function webhookDeliveryCodec(): Codec<WebhookDeliveryRecord> {
  return loadCodec<WebhookDeliveryRecord>(TOPIC_CATALOG.webhookDeliveries.schema);
}

export interface WebhookWakePublisher {
  /**
   * Resolves once every record is durably in Kafka. `requestId`: the HTTP request the deliveries
   * come from (a send's, for the events of its email), as the records' header.
   */
  publish(records: readonly WebhookDeliveryRecord[], requestId?: string): Promise<void>;
  close(): Promise<void>;
}

export function createWebhookWakePublisher(
  opts: Omit<GroupCommitPublisherOptions<WebhookDeliveryRecord>, 'codec' | 'what' | 'sizeOf'>,
): WebhookWakePublisher {
  const inner: GroupCommitPublisher<WebhookDeliveryRecord> = createGroupCommitPublisher({
    ...opts,
    codec: webhookDeliveryCodec(),
    what: 'webhook deliveries',
    sizeOf: () => 160,
  });
  return {
    async publish(records, requestId) {
      await Promise.all(records.map((r) => inner.publish(r.endpoint_id, r, requestId)));
    },
    close: () => inner.close(),
  };
}
