// Prometheus metrics of the mail sender (decisions.md "Operations": mail sends by result).
// Registered once per registry: several hosts may share one (tests, `lattice start`).
import { Counter, type Registry } from 'prom-client';

export interface SenderMetrics {
  /** delivered, hard_bounce, soft_bounce, undetermined, deferred, suppressed. */
  sends: Counter<'result'>;
  /** Attempts started again after a crash during the attempt: possible duplicates at the smart host. */
  repeats: Counter;
}

function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function senderMetrics(registry: Registry): SenderMetrics {
  const registers = [registry];
  return {
    sends: once(
      registry,
      'lattice_mail_sends_total',
      () =>
        new Counter({
          name: 'lattice_mail_sends_total',
          help: 'Handover attempts by result: delivered, hard_bounce, soft_bounce, undetermined, deferred (retried later), suppressed (at send time).',
          labelNames: ['result'],
          registers,
        }),
    ),
    repeats: once(
      registry,
      'lattice_mail_handover_repeats_total',
      () =>
        new Counter({
          name: 'lattice_mail_handover_repeats_total',
          help: 'Attempts repeated because the process handing them over died before storing the answer: each may have reached the smart host twice (same Message-ID).',
          registers,
        }),
    ),
  };
}
