// Prometheus metrics of the mail sender (decisions.md "Operations": mail sends by result).
// Registered once per registry: several hosts may share one (tests, `lattice start`).
import type { Counter, Registry } from 'prom-client';
import { mailCounter } from '../mail-counter.ts';

export interface SenderMetrics {
  /** delivered, hard_bounce, soft_bounce, undetermined, deferred, suppressed. */
  sends: Counter<'result'>;
  /** Attempts started again after a crash during the attempt: possible duplicates at the smart host. */
  repeats: Counter;
}

/** Every result a send can end an attempt with. */
export const SEND_RESULTS = [
  'delivered',
  'hard_bounce',
  'soft_bounce',
  'undetermined',
  'deferred',
  'suppressed',
] as const;

export function senderMetrics(registry: Registry): SenderMetrics {
  const metrics: SenderMetrics = {
    sends: mailCounter(
      registry,
      'lattice_mail_sends_total',
      'Handover attempts by result: delivered, hard_bounce, soft_bounce, undetermined, deferred (retried later), suppressed (at send time).',
      ['result'],
    ),
    repeats: mailCounter(
      registry,
      'lattice_mail_handover_repeats_total',
      'Attempts repeated because the process handing them over died before storing the answer: each may have reached the smart host twice (same Message-ID).',
    ),
  };
  // Exported at 0 from the start, so dashboards and alerts see the first bounce as an increase.
  for (const result of SEND_RESULTS) metrics.sends.inc({ result }, 0);
  return metrics;
}
