// Mail area: an endpoint's deliveries and the operator actions on them (decisions.md "Webhook
// delivery defaults": back to pending with 5 new attempts, the same id, `attempts` counting on).
// Access as for the endpoints (mail-webhook-routes.ts). Retry, recover and test change delivery
// rows, then wake the endpoint's actor through `mail.webhook-deliveries`; a wake that cannot be
// published is logged and the answer still goes out, since the row is durable and the actors'
// wake sweep finds due pending deliveries without a wake.
import { type Clock, errorMessage, type Logger, systemClock } from '@lattice/core';
import { type RouteDef, requestIdOf } from '@lattice/http';
import {
  MAIL_ERRORS,
  type WebhookActionRefusal,
  type WebhookDelivery,
  type WebhookEndpointStore,
  type WebhookEventName,
  type WebhookWakePublisher,
} from '@lattice/mail';
import { validationError } from '../errors.ts';
import { principalOf } from './principal.ts';

const common = { area: 'mail', auth: 'management' } as const;

export interface MailWebhookDeliveryRouteDeps {
  webhooks: WebhookEndpointStore;
  wakes: WebhookWakePublisher;
  logger: Logger;
  /** Dates test events and bounds `since`; default the system clock. */
  clock?: Clock;
}

export function webhookDeliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
    response_status: d.responseStatus,
    last_error: d.lastError,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
  };
}

const refused = (outcome: WebhookActionRefusal | 'delivery_not_found') =>
  outcome === 'endpoint_disabled'
    ? MAIL_ERRORS.webhookEndpointDisabled()
    : outcome === 'delivery_not_found'
      ? MAIL_ERRORS.webhookDeliveryNotFound()
      : MAIL_ERRORS.webhookNotFound();

export function mailWebhookDeliveryRoutes(deps: MailWebhookDeliveryRouteDeps): RouteDef[] {
  const { webhooks, logger } = deps;
  const clock = deps.clock ?? systemClock;

  /**
   * Wakes the endpoint's actor with one record (its oldest changed delivery): a loop reads every
   * pending delivery from the database, so a recover of thousands needs one wake, not thousands.
   * A failure only delays the deliveries until the wake sweep.
   */
  async function wake(deliveries: readonly WebhookDelivery[], requestId: string | undefined): Promise<void> {
    const d = [...deliveries].sort((a, b) => a.seq - b.seq)[0];
    if (!d) return;
    try {
      await deps.wakes.publish(
        [
          {
            delivery_id: d.id,
            endpoint_id: d.endpointId,
            product_id: d.productId,
            event_type: d.eventType,
            seq: d.seq,
            recorded_at_ms: clock.nowMs(),
          },
        ],
        requestId,
      );
    } catch (err) {
      logger.warn(
        { err: errorMessage(err), endpointId: deliveries[0]!.endpointId, deliveries: deliveries.length },
        'could not wake the webhook endpoint actor; its wake sweep will find the deliveries',
      );
    }
  }

  const wakeNote =
    ' If the actors cannot be woken (Kafka unavailable) the answer is the same: the change is ' +
    'stored, and the actors’ wake sweep picks it up shortly after.';

  return [
    {
      ...common,
      method: 'GET',
      path: '/mail/webhooks/:id/deliveries',
      operationId: 'mail_webhook_deliveries_list',
      summary: 'List an endpoint’s deliveries',
      description:
        'Delivery records of the endpoint, newest first, 1 to 100 per page (`limit`, default 50). ' +
        '`next_cursor` marks where the page ended: deliveries recorded meanwhile do not shift the ' +
        'next page.',
      request: { params: 'mail-webhook-params', query: 'mail-webhook-deliveries-query' },
      responses: { 200: 'mail-webhook-delivery-list' },
      errors: [MAIL_ERRORS.webhookNotFound()],
      async handler(ctx) {
        const limit = ctx.query.limit as number;
        const cursor = ctx.query.cursor as string | undefined;
        const rows = await webhooks.listDeliveries(principalOf(ctx).productId, ctx.params.id as string, {
          limit: limit + 1,
          ...(cursor === undefined ? {} : { afterDeliveryId: cursor }),
        });
        if (!rows) throw MAIL_ERRORS.webhookNotFound();
        if (rows === 'unknown_cursor') {
          throw validationError([{ path: 'query.cursor', message: 'must be a next_cursor of this list' }]);
        }
        const shown = rows.slice(0, limit);
        return {
          status: 200,
          body: {
            data: shown.map(webhookDeliveryView),
            next_cursor: rows.length > limit ? shown[shown.length - 1]!.id : null,
          },
        };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/mail/webhooks/:id/deliveries/:delivery_id/retry',
      operationId: 'mail_webhook_delivery_retry',
      summary: 'Retry a failed delivery',
      description:
        'Puts a `failed` delivery back to `pending` with 5 new attempts, due now: the same ' +
        '`webhook-id` and body, `attempts` counting on. 409 `webhook_delivery_not_failed` for a ' +
        'pending or succeeded delivery, 409 `webhook_endpoint_disabled` on a disabled endpoint. ' +
        'Answers 202 with the delivery.' +
        wakeNote,
      request: { params: 'mail-webhook-delivery-params' },
      responses: { 202: 'mail-webhook-delivery' },
      errors: [
        MAIL_ERRORS.webhookNotFound(),
        MAIL_ERRORS.webhookDeliveryNotFound(),
        MAIL_ERRORS.webhookDeliveryNotFailed('succeeded'),
        MAIL_ERRORS.webhookEndpointDisabled(),
      ],
      async handler(ctx) {
        const result = await webhooks.retryDelivery(
          principalOf(ctx).productId,
          ctx.params.id as string,
          ctx.params.delivery_id as string,
        );
        if (result.outcome === 'delivery_not_failed') {
          throw MAIL_ERRORS.webhookDeliveryNotFailed(result.status);
        }
        if (result.outcome !== 'retried') throw refused(result.outcome);
        await wake([result.delivery], requestIdOf(ctx.res));
        return { status: 202, body: webhookDeliveryView(result.delivery) };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/mail/webhooks/:id/recover',
      operationId: 'mail_webhook_recover',
      summary: 'Retry every failed delivery of a period',
      description:
        'Puts every `failed` delivery of the endpoint recorded from `since` to `until` (default ' +
        'now; both included) back to `pending` as `mail_webhook_delivery_retry` does, and answers ' +
        '202 with how many. `since` must not be in the future nor after `until`. 409 ' +
        '`webhook_endpoint_disabled` on a disabled endpoint: enable it first.' +
        wakeNote,
      request: { params: 'mail-webhook-params', body: 'mail-webhook-recover' },
      responses: { 202: 'mail-webhook-recovered' },
      errors: [MAIL_ERRORS.webhookNotFound(), MAIL_ERRORS.webhookEndpointDisabled()],
      async handler(ctx) {
        const body = ctx.body as { since: string; until?: string };
        const nowMs = clock.nowMs();
        const since = new Date(body.since);
        const until = body.until === undefined ? new Date(nowMs) : new Date(body.until);
        if (since.getTime() > nowMs) {
          throw validationError([{ path: 'body.since', message: 'must not be in the future' }]);
        }
        if (until < since) {
          throw validationError([{ path: 'body.until', message: 'must not be before since' }]);
        }
        const result = await webhooks.recover(principalOf(ctx).productId, ctx.params.id as string, {
          since,
          until,
        });
        if (result.outcome !== 'recovered') throw refused(result.outcome);
        await wake(result.deliveries, requestIdOf(ctx.res));
        return { status: 202, body: { recovered: result.deliveries.length } };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/mail/webhooks/:id/test',
      operationId: 'mail_webhook_test',
      summary: 'Send a test event to an endpoint',
      description:
        'Records one pending delivery of a made-up event of `event_type` (default the endpoint’s ' +
        'first subscribed event): a new `eventId`, `emailId` null, recipient `test@example.com`, ' +
        'reason `Test event sent by mail_webhook_test`, signed and retried like any other ' +
        'delivery. Answers 202 with the delivery; follow it with `mail_webhook_deliveries_list`. ' +
        '409 `webhook_endpoint_disabled` on a disabled endpoint.' +
        wakeNote,
      request: { params: 'mail-webhook-params', body: 'mail-webhook-test' },
      responses: { 202: 'mail-webhook-delivery' },
      errors: [MAIL_ERRORS.webhookNotFound(), MAIL_ERRORS.webhookEndpointDisabled()],
      async handler(ctx) {
        const body = ctx.body as { event_type?: WebhookEventName };
        const result = await webhooks.insertTestDelivery(
          principalOf(ctx).productId,
          ctx.params.id as string,
          {
            ...(body.event_type === undefined ? {} : { eventType: body.event_type }),
            nowMs: clock.nowMs(),
          },
        );
        if (result.outcome !== 'recorded') throw refused(result.outcome);
        await wake([result.delivery], requestIdOf(ctx.res));
        return { status: 202, body: webhookDeliveryView(result.delivery) };
      },
    },
  ];
}
