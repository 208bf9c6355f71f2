// What the webhook fan-out records: one pending delivery per event per subscribed endpoint.
import type { MailEventRecord } from '../events/mail-event.ts';
import type { WebhookDeliveryRecord } from './webhook-wake.ts';

export interface FanoutEvent {
  event: MailEventRecord;
  /** The delivery body (webhookPayload). */
  payload: string;
  /**
   * When the event was recorded on `mail.events` (its record's timestamp): only endpoints created
   * by then receive it, so a replay does not hand an old event to a newer endpoint.
   */
  recordedAtMs: number;
}

export interface FanoutStore {
  /**
   * Records the deliveries of `events` (oldest first; idempotent on event and endpoint) for every
   * enabled live endpoint of the product subscribed to the event's type, and returns the wake
   * records of those still pending: the new ones and, on a replay, the ones recorded before.
   */
  record(events: readonly FanoutEvent[]): Promise<WebhookDeliveryRecord[]>;
}
