// Realtime area: what a backend does on channels through the management API, mirroring the
// public edge's realtime toolkit (docs/realtime-http.md "Routes"): issue delegated tokens,
// publish server-side (body cap 16 MiB: data over 256 KiB is stored and delivered as a `ref`),
// read history and presence. The product is the credential's; the environment is chosen by an
// optional `environment` field (body) or query parameter, default production. Both surfaces run
// the same services (@lattice/realtime), so they refuse alike.
import type { Environment } from '@lattice/core';
import { PREFERENCE_APPLIED_HEADER, type RouteContext, type RouteDef, requestIdOf } from '@lattice/http';
import {
  type PublishMessageBody,
  REALTIME_ERRORS,
  type RealtimeHttp,
  type TokenRequestBody,
} from '@lattice/realtime';
import { principalOf } from './principal.ts';

const common = { area: 'realtime', auth: 'management' } as const;

/** docs/realtime-http.md "Statuses": server-side publish body cap. */
export const MANAGEMENT_PUBLISH_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The body without the management API's own `environment` field (its schema is the public
 * route's plus that field, and filled in its default), and that environment.
 */
function splitEnvironment<B>(body: unknown): { environment: Environment; rest: B } {
  const { environment, ...rest } = body as B & { environment?: Environment };
  return { environment: environment ?? 'production', rest: rest as B };
}

function queryEnvironment(ctx: RouteContext): Environment {
  return (ctx.query.environment as Environment | undefined) ?? 'production';
}

function headerOf(ctx: RouteContext, name: string): string | undefined {
  const value = ctx.req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function realtimeChannelRoutes(deps: { realtime: RealtimeHttp }): RouteDef[] {
  const { realtime } = deps;
  return [
    {
      ...common,
      method: 'POST',
      path: '/realtime/tokens',
      operationId: 'realtime_token_issue',
      summary: 'Issue a delegated token for an end user',
      description:
        'Same body and answer as the public edge’s `POST /tokens/issue`, plus `environment` ' +
        '(default production): the token is signed with that environment’s key and valid only on ' +
        'its gateway (`gatewayUrl`). Each channel is narrowed by its namespace policy (unregistered ' +
        'namespace: dropped; `presence` needs presence on; `publish` needs client events; `history` ' +
        'needs a history window); 422 `no_capabilities` when nothing remains.',
      request: { body: 'realtime-token-request-management' },
      responses: { 200: 'realtime-token' },
      errors: [REALTIME_ERRORS.noCapabilities()],
      async handler(ctx) {
        const { environment, rest } = splitEnvironment<TokenRequestBody>(ctx.body);
        const answer = await realtime.tokens.issue({
          productId: principalOf(ctx).productId,
          environment,
          body: rest,
        });
        return { status: 200, body: answer };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/realtime/messages',
      operationId: 'realtime_message_publish',
      summary: 'Publish a message to a channel',
      description:
        'Answers 202 `{id, channel}` once the message is durably in Kafka; subscribers and history ' +
        'get it from the channel actor. With `Prefer: return=representation` (optionally `wait=N`, ' +
        '1 to 5 seconds, default 5) it waits until the channel actor applied the message and ' +
        'answers 201 `{id, channel, offset, epoch}` with `Preference-Applied: ' +
        'return=representation`; not applied within the wait, the usual 202 (the message is still ' +
        'accepted). Body cap 16 MiB; `data` serialized over 262 144 bytes is ' +
        'stored and delivered as a `ref` (503 `payload_storage_not_provisioned` when the product has ' +
        'no payload storage). Send an `Idempotency-Key` header to publish once per key within 5 ' +
        'minutes: a repeat answers what the first answered (its 201 when that is known, else 202 ' +
        '`{id, channel}`). Per-product quota per 10 s window ' +
        '(shared with the public edge): beyond the hard limit 429 with `Retry-After`. Optional ' +
        '`environment`, default production.',
      request: {
        body: 'realtime-message-publish-management',
        headers: 'realtime-message-publish-headers',
      },
      bodyLimitBytes: MANAGEMENT_PUBLISH_BODY_LIMIT_BYTES,
      responses: {
        201: {
          schema: 'realtime-message-published',
          description: 'Applied within the wait (asked for with `Prefer: return=representation`)',
          headers: { [PREFERENCE_APPLIED_HEADER]: '`return=representation`' },
        },
        202: 'realtime-message-accepted',
      },
      errors: [
        REALTIME_ERRORS.namespaceNotFound('chat'),
        REALTIME_ERRORS.idempotencyKeyMismatch(),
        REALTIME_ERRORS.idempotencyKeyInUse(),
        REALTIME_ERRORS.quotaExceeded({ 'Retry-After': '3' }),
        REALTIME_ERRORS.publishUnavailable(),
        REALTIME_ERRORS.payloadStorageNotProvisioned(),
        REALTIME_ERRORS.payloadStorageUnavailable(),
      ],
      async handler(ctx) {
        const principal = principalOf(ctx);
        const { environment, rest } = splitEnvironment<PublishMessageBody>(ctx.body);
        const answer = await realtime.messages.publish({
          productId: principal.productId,
          environment,
          body: rest,
          idempotencyKey: headerOf(ctx, 'idempotency-key'),
          prefer: headerOf(ctx, 'prefer'),
          publisher: principal.memberId ?? principal.credentialId,
          requestId: requestIdOf(ctx.res),
        });
        return {
          status: answer.status,
          body: answer.body,
          headers: { ...answer.headers, ...(answer.replayed ? { 'Idempotent-Replayed': 'true' } : {}) },
        };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/realtime/channels/:channel/history',
      operationId: 'realtime_history_get',
      summary: 'Read a channel’s history',
      description:
        'Exactly one of a window (`last_n` 1 to 1000, or `last_ms` > 0) or a cursor (`offset` and ' +
        '`epoch` together): a cursor read answers the entries after `offset`, with `recovered: ' +
        'false` when the epoch changed or entries aged out (resync). Entries oldest first, at most ' +
        '1000. A namespace with history off answers an empty result. Optional `environment`.',
      request: { params: 'realtime-channel-params', query: 'realtime-history-query-management' },
      responses: { 200: 'realtime-history' },
      errors: [REALTIME_ERRORS.namespaceNotFound('chat'), REALTIME_ERRORS.historyUnavailable()],
      async handler(ctx) {
        const { environment, ...query } = ctx.query;
        const answer = await realtime.reads.history({
          productId: principalOf(ctx).productId,
          environment: (environment as Environment | undefined) ?? 'production',
          channel: ctx.params.channel,
          query,
        });
        return { status: 200, body: answer };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/realtime/channels/:channel/presence',
      operationId: 'realtime_presence_get',
      summary: 'Read a channel’s presence roster',
      description:
        'Members (one per identity) with their connection counts and info. 403 ' +
        '`presence_disabled` when the namespace has presence off. Optional `environment`.',
      request: { params: 'realtime-channel-params', query: 'realtime-presence-query' },
      responses: { 200: 'realtime-presence' },
      errors: [
        REALTIME_ERRORS.namespaceNotFound('chat'),
        REALTIME_ERRORS.presenceDisabled('chat'),
        REALTIME_ERRORS.presenceUnavailable(),
      ],
      async handler(ctx) {
        const answer = await realtime.reads.presence({
          productId: principalOf(ctx).productId,
          environment: queryEnvironment(ctx),
          channel: ctx.params.channel,
        });
        return { status: 200, body: answer };
      },
    },
  ];
}
