// What the mail HTTP surfaces count on the deployment's registry.
import { Counter, type Registry } from 'prom-client';

export interface MailHttpMetrics {
  /** A send-rate count answered by the in-process limiter because Redis failed or was slow. */
  sendRateFallback(): void;
}

export function mailHttpMetrics(registry: Registry): MailHttpMetrics {
  const name = 'lattice_mail_send_rate_fallbacks_total';
  const counter =
    (registry.getSingleMetric(name) as Counter | undefined) ??
    new Counter({
      name,
      help: 'Send-rate counts answered by the in-process limiter because Redis failed or was too slow.',
      registers: [registry],
    });
  return { sendRateFallback: () => counter.inc() };
}
