// Prometheus metrics of webhook delivery (decisions.md "Operations": webhook deliveries by
// status). Registered once per registry, as every mail counter.
import type { Counter, Registry } from 'prom-client';
import { mailCounter } from '../mail-counter.ts';

export interface DeliveryMetrics {
  /** Deliveries that ended: succeeded, failed (after attempts), failed_without_request. */
  deliveries: Counter<'status'>;
  /** Attempts by outcome: success, http_error (a non-2xx answer), no_answer. */
  attempts: Counter<'outcome'>;
  /** Endpoints disabled by delivery: failures (3 in a row), gone (410). */
  disabled: Counter<'reason'>;
  /** Attempts whose outcome was not stored: another owner recorded that attempt first. */
  overtaken: Counter;
  /** Deliveries recorded by the fan-out. */
  recorded: Counter;
}

export function deliveryMetrics(registry: Registry): DeliveryMetrics {
  const metrics: DeliveryMetrics = {
    deliveries: mailCounter(
      registry,
      'lattice_mail_webhook_deliveries_total',
      'Webhook deliveries that ended, by status: succeeded, failed (after their attempts), failed_without_request (endpoint disabled or deleted).',
      ['status'],
    ),
    attempts: mailCounter(
      registry,
      'lattice_mail_webhook_attempts_total',
      'Webhook delivery attempts by outcome: success (2xx), http_error (another status), no_answer (refused target, connection, TLS or timeout).',
      ['outcome'],
    ),
    disabled: mailCounter(
      registry,
      'lattice_mail_webhook_endpoints_disabled_total',
      'Webhook endpoints disabled by delivery: failures (3 deliveries failed for good in a row), gone (a 410 answer).',
      ['reason'],
    ),
    overtaken: mailCounter(
      registry,
      'lattice_mail_webhook_attempts_overtaken_total',
      'Attempts whose outcome another owner of the endpoint recorded first (a rebalance overlap): not counted twice.',
    ),
    recorded: mailCounter(
      registry,
      'lattice_mail_webhook_deliveries_recorded_total',
      'Deliveries recorded by the webhook fan-out (one per event per subscribed enabled endpoint).',
    ),
  };
  // Exported at 0 from the start, so the first failure is an increase that alerts see.
  for (const status of ['succeeded', 'failed', 'failed_without_request'])
    metrics.deliveries.inc({ status }, 0);
  for (const outcome of ['success', 'http_error', 'no_answer']) metrics.attempts.inc({ outcome }, 0);
  for (const reason of ['failures', 'gone']) metrics.disabled.inc({ reason }, 0);
  return metrics;
}
