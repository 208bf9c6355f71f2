// What the mail HTTP surfaces count on the deployment's registry.
import type { Registry } from 'prom-client';
import { mailCounter } from '../mail-counter.ts';

export interface MailHttpMetrics {
  /** A send-rate count answered by the in-process limiter because Redis failed or was slow. */
  sendRateFallback(): void;
}

export function mailHttpMetrics(registry: Registry): MailHttpMetrics {
  const counter = mailCounter(
    registry,
    'lattice_mail_send_rate_fallbacks_total',
    'Send-rate counts answered by the in-process limiter because Redis failed or was too slow.',
  );
  return { sendRateFallback: () => counter.inc() };
}
