// What the endpoint actor reads and writes of its deliveries (the attempt columns of
// mail_webhook_deliveries and the failure count of its endpoint). One implementation per file:
// `.postgres` for the platform, `.memory` for the worker's unit tests.
import type { AttemptDecision } from './delivery-logic.ts';

/** The oldest pending delivery of an endpoint, with what an attempt needs of the endpoint. */
export interface DeliveryHead {
  delivery: {
    id: string;
    seq: number;
    eventType: string;
    payload: string;
    attempts: number;
    maxAttempts: number;
    nextAttemptAtMs: number;
  };
  endpoint: {
    id: string;
    url: string;
    /** False when disabled or deleted: its pending deliveries fail without a request. */
    live: boolean;
    secretSealed: string;
  };
}

export interface RecordedAttempt {
  /** False when the delivery's attempts changed since it was read (another owner recorded first). */
  recorded: boolean;
  /** The endpoint was disabled by this attempt (410, or the third delivery failed for good in a row). */
  disabledEndpoint: 'gone' | 'failures' | null;
}

export interface DeliveryStore {
  /** The lowest-`seq` pending delivery of the endpoint; null when none (or no such endpoint). */
  head(endpointId: string): Promise<DeliveryHead | null>;
  /**
   * Fails the endpoint's pending deliveries due at `nowMs` without a request, if the endpoint is
   * disabled or deleted when the statement runs (a re-enable in between leaves them pending).
   * Returns how many.
   */
  failWithoutRequest(endpointId: string, nowMs: number): Promise<number>;
  /**
   * Stores one attempt's outcome, fenced on the attempts the delivery had when read, so an attempt
   * is counted once even when two owners overlap during a rebalance; applies the endpoint effect.
   */
  recordAttempt(input: {
    deliveryId: string;
    endpointId: string;
    seenAttempts: number;
    attemptedAtMs: number;
    decision: AttemptDecision;
  }): Promise<RecordedAttempt>;
  /**
   * Endpoints with a pending delivery due at `nowMs` (the wake sweep's scan), of these products
   * only when given (tests sharing a database).
   */
  endpointsDue(nowMs: number, limit: number, productIds?: readonly string[]): Promise<string[]>;
}
