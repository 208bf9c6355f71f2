// Prometheus metrics of the inbound receiver, on the registry of the role that runs it (the
// `inbound` role). Several receivers may share one registry (tests, the all-in-one `lattice
// start`), so each metric is created once per registry. Labels are bounded: outcomes, reasons,
// event types and bounce kinds, never addresses or ids.
import { Gauge, type Registry } from 'prom-client';
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

/**
 * Why the receiver itself closed a connection: `per_address`, greeted with 421 as its address
 * already held its share; `silent`, nothing sent within the first-command timeout.
 */
export type InboundConnectionRefusal = 'per_address' | 'silent';

export const INBOUND_CONNECTION_REFUSALS: readonly InboundConnectionRefusal[] = ['per_address', 'silent'];

export interface InboundMetrics {
  /** A TCP connection was opened; connectionClosed follows once it is gone. */
  connectionOpened(): void;
  connectionClosed(): void;
  connectionRefused(reason: InboundConnectionRefusal): void;
  message(outcome: InboundOutcome): void;
  event(event: MailEventRecord): void;
}

function inboundGauge(registry: Registry, name: string, help: string): Gauge {
  return (
    (registry.getSingleMetric(name) as Gauge | undefined) ?? new Gauge({ name, help, registers: [registry] })
  );
}

export function inboundMetrics(registry: Registry): InboundMetrics {
  const open = inboundGauge(
    registry,
    'lattice_mail_inbound_open_connections',
    'SMTP connections the inbound receiver holds open now',
  );
  const connections = mailCounter(
    registry,
    'lattice_mail_inbound_connections_total',
    'SMTP connections opened to the inbound receiver (refused ones included)',
  );
  const refused = mailCounter<'reason'>(
    registry,
    'lattice_mail_inbound_connections_refused_total',
    'Connections the inbound receiver closed itself, by reason: per_address (421, the address ' +
      'already held its share of the connections), silent (nothing sent after it opened)',
    ['reason'],
  );
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
  // Every outcome and reason is a series from the start, so a rate over it is never "no data".
  connections.inc(0);
  for (const reason of INBOUND_CONNECTION_REFUSALS) refused.inc({ reason }, 0);
  for (const outcome of INBOUND_OUTCOMES) messages.inc({ outcome }, 0);
  return {
    connectionOpened: () => {
      connections.inc();
      open.inc();
    },
    connectionClosed: () => open.dec(),
    connectionRefused: (reason) => refused.inc({ reason }),
    message: (outcome) => messages.inc({ outcome }),
    event: (e) => events.inc({ type: e.type, bounce_kind: e.bounce_kind ?? 'none' }),
  };
}
