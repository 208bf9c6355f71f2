// What the tracking routes count on the deployment's registry. A link with an invalid token is
// answered 404 and counted here, never logged (its token may be a recipient's working link
// with a typo, and a scanner's guesses are noise).
import type { Registry } from 'prom-client';
import { mailCounter } from '../mail-counter.ts';

export type TrackingRoute = 'open' | 'click' | 'unsubscribe_page' | 'unsubscribe';

export interface TrackingMetrics {
  /** A request on a tracking route: `ok` (its token verified) or `invalid_token` (answered 404). */
  request(route: TrackingRoute, outcome: 'ok' | 'invalid_token'): void;
  /** An open or click answered to the recipient whose event could not be published. */
  eventLost(type: 'opened' | 'clicked'): void;
}

export function trackingMetrics(registry: Registry): TrackingMetrics {
  const requests = mailCounter(
    registry,
    'lattice_mail_tracking_requests_total',
    'Requests on the tracking and unsubscribe routes, by route and whether the token verified.',
    ['route', 'outcome'],
  );
  const lost = mailCounter(
    registry,
    'lattice_mail_tracking_events_lost_total',
    'Opens and clicks answered to the recipient whose event could not be published to Kafka.',
    ['type'],
  );
  return {
    request: (route, outcome) => requests.inc({ route, outcome }),
    eventLost: (type) => lost.inc({ type }),
  };
}
