// Prometheus counters of the inbound receiver. Several receivers may share one registry (tests,
// the all-in-one `lattice start`), so each metric is created once per registry. Labels are
// bounded: outcomes, event types and bounce kinds, never addresses or ids.
import type { Registry } from 'prom-client';
import type { MailEventRecord } from '../events/mail-event.ts';
import { mailCounter } from '../mail-counter.ts';
import type { InboundOutcome } from './report-matching.ts';

export const INBOUND_OUTCOMES: readonly InboundOutcome[] = [
  'bounce',
  'complaint',
  'unmatched',
  'malformed',
  'too_large',
  'ignored',
  'deferred',
];

export interface InboundMetrics {
  message(outcome: InboundOutcome): void;
  event(event: MailEventRecord): void;
}

export function inboundMetrics(registry: Registry): InboundMetrics {
  const messages = mailCounter<'outcome'>(
    registry,
    'lattice_mail_inbound_messages_total',
    'Messages the inbound receiver settled, by outcome: bounce and complaint produced an event; ' +
      'unmatched, malformed and ignored were answered 250 and dropped; too_large got 552; ' +
      'deferred got 451 (events could not be published or emails looked up)',
    ['outcome'],
  );
  const events = mailCounter<'type' | 'bounce_kind'>(
    registry,
    'lattice_mail_inbound_events_total',
    'Mail events the inbound receiver published, by type and bounce kind (none for complaints)',
    ['type', 'bounce_kind'],
  );
  // Every outcome is a series from the start, so a rate over it is never "no data".
  for (const outcome of INBOUND_OUTCOMES) messages.inc({ outcome }, 0);
  return {
    message: (outcome) => messages.inc({ outcome }),
    event: (e) => events.inc({ type: e.type, bounce_kind: e.bounce_kind ?? 'none' }),
  };
}
