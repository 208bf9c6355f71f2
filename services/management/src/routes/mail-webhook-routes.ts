// Mail area: webhook endpoints (spec "Webhook endpoint (mail)", "Mail webhook endpoint" states;
// decisions.md "Management paths", "Webhook delivery defaults"). Member tokens and full_access
// mail keys reach them; a sending_access key does not (no SENDING_ACCESS). The signing secret is
// in the creation answer only. An endpoint's deliveries: mail-webhook-delivery-routes.ts.
import type { RouteDef } from '@lattice/http';
import { MAIL_ERRORS, type WebhookEndpoint, type WebhookEventName } from '@lattice/mail';
import { validationError } from '../errors.ts';
import { listAnswer, pageRequest } from './key-views.ts';
import {
  type MailWebhookDeliveryRouteDeps,
  mailWebhookDeliveryRoutes,
} from './mail-webhook-delivery-routes.ts';
import { principalOf } from './principal.ts';

const common = { area: 'mail', auth: 'management' } as const;

/** Refuses webhook targets the platform must not call (createTargetGuard's checkUrl). */
export interface WebhookTargetCheck {
  checkUrl(url: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}

export interface MailWebhookRouteDeps extends MailWebhookDeliveryRouteDeps {
  /** Checked at create, and at update when the url changes. */
  targets: WebhookTargetCheck;
}

export function webhookEndpointView(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    enabled: e.enabled,
    created_at: e.createdAt.toISOString(),
  };
}

interface EndpointBody {
  url?: string;
  events?: WebhookEventName[];
  description?: string | null;
  enabled?: boolean;
}

export function mailWebhookRoutes(deps: MailWebhookRouteDeps): RouteDef[] {
  const { webhooks } = deps;

  async function checkTarget(url: string): Promise<void> {
    // The schema let through an https:// prefix without spaces; the rest of the URL must parse.
    const problem = URL.parse(url) === null ? 'is not a valid URL' : await targetProblem(url);
    if (problem !== null) throw validationError([{ path: 'body.url', message: problem }]);
  }

  async function targetProblem(url: string): Promise<string | null> {
    const verdict = await deps.targets.checkUrl(url);
    return verdict.ok ? null : verdict.reason;
  }

  /** The target check as the audited route's `prepare`: before the transaction opens. */
  async function checkedTarget(body: unknown): Promise<'checked'> {
    const url = (body as EndpointBody).url;
    if (url !== undefined) await checkTarget(url);
    return 'checked';
  }

  const found = (e: WebhookEndpoint | undefined): WebhookEndpoint => {
    if (!e) throw MAIL_ERRORS.webhookNotFound();
    return e;
  };

  return [
    {
      ...common,
      method: 'POST',
      path: '/mail/webhooks',
      operationId: 'mail_webhook_create',
      audit: { targetType: 'webhook_endpoint', prepare: (ctx) => checkedTarget(ctx.body) },
      summary: 'Add a webhook endpoint',
      description:
        'Adds an endpoint that receives the named events (enabled unless `enabled` is false) and ' +
        'answers it with its signing `secret` (`whsec_…`), shown in this answer only: store it to ' +
        'verify the `webhook-signature` of deliveries. The `url` must be `https://` and must not ' +
        'point at a refused address (400 `validation_error` naming `body.url`). Applies to events ' +
        'recorded after the answer.',
      request: { body: 'mail-webhook-create' },
      responses: { 201: 'mail-webhook-created' },
      async handler(ctx) {
        const body = ctx.body as Required<Pick<EndpointBody, 'url' | 'events' | 'enabled'>> & EndpointBody;
        if (ctx.prepared !== 'checked') await checkTarget(body.url);
        const { endpoint, secret } = await webhooks.create(principalOf(ctx).productId, {
          url: body.url,
          events: body.events,
          description: body.description ?? null,
          enabled: body.enabled,
        });
        return { status: 201, body: { ...webhookEndpointView(endpoint), secret } };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/mail/webhooks',
      operationId: 'mail_webhook_list',
      summary: 'List the webhook endpoints',
      description:
        'Endpoints of the product, newest first, without their secrets. `next_cursor` is the ' +
        'last endpoint’s id; a cursor naming no endpoint of the product reads as the end.',
      request: { query: 'mail-webhook-list-query' },
      responses: { 200: 'mail-webhook-list' },
      async handler(ctx) {
        const page = pageRequest(ctx.query);
        const rows = await webhooks.list(principalOf(ctx).productId, page);
        return { status: 200, body: listAnswer(rows, page, webhookEndpointView) };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/mail/webhooks/:id',
      operationId: 'mail_webhook_get',
      summary: 'Get a webhook endpoint',
      description: 'The endpoint without its secret; 404 `not_found` for an unknown or deleted id.',
      request: { params: 'mail-webhook-params' },
      responses: { 200: 'mail-webhook' },
      errors: [MAIL_ERRORS.webhookNotFound()],
      async handler(ctx) {
        const endpoint = found(await webhooks.get(principalOf(ctx).productId, ctx.params.id as string));
        return { status: 200, body: webhookEndpointView(endpoint) };
      },
    },
    {
      ...common,
      method: 'PATCH',
      path: '/mail/webhooks/:id',
      operationId: 'mail_webhook_update',
      audit: { targetType: 'webhook_endpoint', prepare: (ctx) => checkedTarget(ctx.body) },
      summary: 'Change a webhook endpoint',
      description:
        'Sets any of `url`, `events`, `description` (null clears it) and `enabled`; a field left ' +
        'out keeps its value, and the secret cannot be replaced. `enabled: false` stops deliveries ' +
        '(pending ones then fail without a request); `enabled: true` on a disabled endpoint, also ' +
        'one disabled after repeated failures, resets its failure count and queues nothing again. ' +
        'Applies to attempts and events after the answer.',
      request: { params: 'mail-webhook-params', body: 'mail-webhook-update' },
      responses: { 200: 'mail-webhook' },
      errors: [MAIL_ERRORS.webhookNotFound()],
      async handler(ctx) {
        const body = ctx.body as EndpointBody;
        if (ctx.prepared !== 'checked' && body.url !== undefined) await checkTarget(body.url);
        const endpoint = found(
          await webhooks.update(principalOf(ctx).productId, ctx.params.id as string, {
            ...(body.url === undefined ? {} : { url: body.url }),
            ...(body.events === undefined ? {} : { events: body.events }),
            ...(body.description === undefined ? {} : { description: body.description }),
            ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
          }),
        );
        return { status: 200, body: webhookEndpointView(endpoint) };
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/mail/webhooks/:id',
      operationId: 'mail_webhook_delete',
      audit: { targetType: 'webhook_endpoint' },
      summary: 'Delete a webhook endpoint',
      description:
        'Removes the endpoint for good: it receives nothing from the answer on (pending deliveries ' +
        'fail without a request) and every operation on it answers 404 `not_found`.',
      request: { params: 'mail-webhook-params' },
      responses: { 204: { description: 'Deleted' } },
      errors: [MAIL_ERRORS.webhookNotFound()],
      async handler(ctx) {
        if (!(await webhooks.delete(principalOf(ctx).productId, ctx.params.id as string))) {
          throw MAIL_ERRORS.webhookNotFound();
        }
        return { status: 204 };
      },
    },
    ...mailWebhookDeliveryRoutes(deps),
  ];
}
