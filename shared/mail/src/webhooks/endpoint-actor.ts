// The webhook endpoint actor kind on `mail.webhook-deliveries` (key: endpoint id). A record says a
// delivery of the endpoint was recorded or put back to pending; handling it wakes the endpoint's
// loop (endpoint-workers.ts) and returns, so a slow receiver never holds up the partition's other
// endpoints. Nothing is stored per record: the delivery row was durable before its record was
// produced, and waking is idempotent, so replays need no applied position.
import type { ActorKind } from '@lattice/kafka';
import type { EndpointWorkers } from './endpoint-workers.ts';
import type { WebhookDeliveryRecord } from './webhook-wake.ts';

export const WEBHOOK_ENDPOINT_KIND = 'webhook-endpoint';

export function webhookEndpointActorKind(workers: EndpointWorkers): ActorKind<WebhookDeliveryRecord> {
  return {
    name: WEBHOOK_ENDPOINT_KIND,
    async load(endpointId, partition) {
      return {
        applied: () => null,
        async handle() {
          workers.wake(endpointId, partition);
        },
      };
    },
  };
}
