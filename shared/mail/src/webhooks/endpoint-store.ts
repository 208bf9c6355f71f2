// A product's mail webhook endpoints and what the management API does with their deliveries
// (tables of migration 0008). The management API owns the endpoint rows; of the deliveries it
// only lists them, puts failed ones back to pending (decisions.md "Webhook delivery defaults":
// 5 new attempts, the same id, `attempts` counting on) and records a test delivery. Ids that are
// unknown, malformed, of another product or of a deleted endpoint all read as not found.
import type { WebhookEventName } from './webhook-events.ts';

/** Why an endpoint was last disabled: by an update, 3 deliveries failed in a row, or a 410. */
export type WebhookDisabledReason = 'manual' | 'failures' | 'gone';

export interface WebhookEndpoint {
  id: string;
  productId: string;
  url: string;
  /** As subscribed, in the order given. */
  events: WebhookEventName[];
  description: string | null;
  enabled: boolean;
  consecutiveFailures: number;
  disabledReason: WebhookDisabledReason | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookEndpointInput {
  url: string;
  events: readonly WebhookEventName[];
  description: string | null;
  enabled: boolean;
}

/** Fields left out keep their value. */
export type WebhookEndpointChanges = Partial<WebhookEndpointInput>;

export interface WebhookEndpointPage {
  /** At most this many endpoints. */
  limit: number;
  /** Id of the last endpoint of the previous page; endpoints created after it come next. */
  afterId?: string;
}

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export interface WebhookDelivery {
  /** The `webhook-id` of every attempt. */
  id: string;
  /** The delivery's place in its endpoint's order (bigserial, safe as a number far beyond need). */
  seq: number;
  endpointId: string;
  productId: string;
  eventId: string;
  /** The subscribed name, `email.bounced`. */
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** The attempt count at which the current round ends. */
  maxAttempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  responseStatus: number | null;
  lastError: string | null;
  createdAt: Date;
}

export interface WebhookDeliveryPage {
  /** At most this many deliveries. */
  limit: number;
  /**
   * The id of the delivery the previous page ended with; older deliveries come next. (An id, not
   * the platform-wide `seq`, so a cursor tells a product nothing about others' volume.)
   */
  afterDeliveryId?: string;
}

/** Why an operator action changed nothing. */
export type WebhookActionRefusal = 'endpoint_not_found' | 'endpoint_disabled';

export type RetryDeliveryOutcome =
  | { outcome: 'retried'; delivery: WebhookDelivery }
  | { outcome: WebhookActionRefusal | 'delivery_not_found' }
  | { outcome: 'delivery_not_failed'; status: WebhookDeliveryStatus };

export type RecoverOutcome =
  | { outcome: 'recovered'; deliveries: WebhookDelivery[] }
  | { outcome: WebhookActionRefusal };

export type TestDeliveryOutcome =
  | { outcome: 'recorded'; delivery: WebhookDelivery }
  | { outcome: WebhookActionRefusal };

export interface WebhookEndpointStore {
  /**
   * A new endpoint with a freshly minted `whsec_` secret, stored sealed; the plaintext secret
   * is answered here and never again.
   */
  create(
    productId: string,
    input: WebhookEndpointInput,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  /** Live endpoints, newest first (created_at, then id), as every list. */
  list(productId: string, page: WebhookEndpointPage): Promise<WebhookEndpoint[]>;
  get(productId: string, id: string): Promise<WebhookEndpoint | undefined>;
  /**
   * Enabling a disabled endpoint resets its failure count and reason (and queues nothing again);
   * disabling an enabled one records the reason `manual`.
   */
  update(
    productId: string,
    id: string,
    changes: WebhookEndpointChanges,
  ): Promise<WebhookEndpoint | undefined>;
  /** Soft: the row stays (deleted_at, disabled) so its pending deliveries fail without a request. */
  delete(productId: string, id: string): Promise<boolean>;
  /** Newest first (`seq` descending); undefined when the endpoint is not found. */
  listDeliveries(
    productId: string,
    endpointId: string,
    page: WebhookDeliveryPage,
  ): Promise<WebhookDelivery[] | 'unknown_cursor' | undefined>;
  /** A failed delivery back to pending: max_attempts = attempts + 5, due now. */
  retryDelivery(productId: string, endpointId: string, deliveryId: string): Promise<RetryDeliveryOutcome>;
  /** Every failed delivery of the endpoint created within [since, until] back to pending, as retry does. */
  recover(
    productId: string,
    endpointId: string,
    range: { since: Date; until: Date },
  ): Promise<RecoverOutcome>;
  /**
   * Records a pending delivery of a synthetic event (webhook-test-event.ts) to the endpoint;
   * `eventType` defaults to the endpoint's first subscribed event.
   */
  insertTestDelivery(
    productId: string,
    endpointId: string,
    test: { eventType?: WebhookEventName; nowMs: number },
  ): Promise<TestDeliveryOutcome>;
}
