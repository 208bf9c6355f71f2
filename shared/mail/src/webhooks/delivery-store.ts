// What the endpoint actor reads and writes of its deliveries (the attempt columns of
// mail_webhook_deliveries and the failure count of its endpoint). One implementation per file:
// `.postgres` for the platform, `.memory` for the loops' unit tests; both keep the contract of
// `testing/delivery-store-conformance.ts`.
import type { AttemptDecision } from './delivery-logic.ts';

/** What an attempt needs of its endpoint, as of the read or write that returned it. */
export interface EndpointForAttempt {
  id: string;
  url: string;
  /** False when disabled or deleted: its pending deliveries fail without a request. */
  live: boolean;
  secretSealed: string;
}

export interface PendingDelivery {
  id: string;
  seq: number;
  eventType: string;
  payload: string;
  attempts: number;
  maxAttempts: number;
  nextAttemptAtMs: number;
}

/** The oldest pending deliveries of an endpoint (in `seq` order) with the endpoint. */
export interface DeliveryWindow {
  endpoint: EndpointForAttempt;
  deliveries: PendingDelivery[];
}

export interface AttemptOutcome {
  deliveryId: string;
  endpointId: string;
  /** The delivery's attempts when it was read: the fence. */
  seenAttempts: number;
  attemptedAtMs: number;
  decision: AttemptDecision;
}

export interface RecordedAttempt {
  /** False when the delivery's attempts changed since it was read (another owner recorded first). */
  recorded: boolean;
  /** The endpoint was disabled by this attempt (410, or the third delivery failed for good in a row). */
  disabledEndpoint: 'gone' | 'failures' | null;
  /** The endpoint as the write left it (null if it is gone): the next attempt goes by this. */
  endpoint: EndpointForAttempt | null;
}

export interface DeliveryStore {
  /**
   * Up to `limit` of the endpoint's pending deliveries, lowest `seq` first, with the endpoint;
   * null when it has none (or there is no such endpoint).
   */
  window(endpointId: string, limit: number): Promise<DeliveryWindow | null>;
  /**
   * Fails the endpoint's pending deliveries due at `nowMs` without a request, if the endpoint is
   * disabled or deleted when the statement runs (a re-enable in between leaves them pending).
   * Returns how many.
   */
  failWithoutRequest(endpointId: string, nowMs: number): Promise<number>;
  /**
   * Stores attempts' outcomes (of different endpoints) in one go, each fenced on the attempts its
   * delivery had when read, so an attempt is counted once even when two owners overlap during a
   * rebalance; applies each endpoint effect. Answers in the order given.
   */
  recordAttempts(outcomes: readonly AttemptOutcome[]): Promise<RecordedAttempt[]>;
  /**
   * Endpoints whose oldest pending delivery is due at `nowMs` (the wake sweep's scan), of these
   * products only when given (tests sharing a database).
   */
  endpointsDue(nowMs: number, limit: number, productIds?: readonly string[]): Promise<string[]>;
}
