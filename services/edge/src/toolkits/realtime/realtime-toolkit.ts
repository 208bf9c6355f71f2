// The realtime toolkit's public handlers (docs/realtime-http.md "Routes"), bound to the routes
// of PUBLIC_ROUTES by operationId. By the time one runs, the edge has applied the per-IP limit,
// matched the route, checked the public key and stripped it, read the body within the route's
// cap and validated params, query and body against the route's schemas (the management API's
// compiled validators); the product comes from the path and the environment is the edge's own.
// Every handler runs the same services as the management API (@lattice/realtime
// createRealtimeHttp), so both surfaces answer alike.
//   POST /tokens/issue                        200 {token, gatewayUrl, expiresAt}
//   POST /messages                            202 {id, channel}; per-product publish quota;
//                                             Prefer: return=representation → 201 {id, channel,
//                                             offset, epoch} once applied within the wait
//   GET  /channels/{channel}/history          200 {data, epoch, top_offset, recovered}
//   GET  /channels/{channel}/presence         200 {data}
//   GET  /channels/{channel}/presence/stats   200 {members, connections}
import { type PublicHandlers, requestIdOf } from '@lattice/http';
import type { PublishMessageBody, RealtimeHttp, TokenRequestBody } from '@lattice/realtime';
import { headerOf, withEdgeRateLimits, withEdgeRateLimitsOnRefusal } from '../edge-rate-limits.ts';

export interface RealtimeToolkitDeps {
  /** The shared realtime services (startRealtimeHttpRuntime(...).http). */
  realtime: RealtimeHttp;
}

export function realtimeToolkit(deps: RealtimeToolkitDeps): PublicHandlers {
  const { realtime } = deps;
  return {
    async public_realtime_token_issue({ environment, productId, body }) {
      const answer = await realtime.tokens.issue({
        productId,
        environment,
        body: body as TokenRequestBody,
      });
      return { status: 200, body: answer, headers: { 'Cache-Control': 'no-store' } };
    },

    async public_realtime_message_publish({ environment, productId, keyId, body, req, res }) {
      try {
        const answer = await realtime.messages.publish({
          productId,
          environment,
          body: body as PublishMessageBody,
          idempotencyKey: headerOf(req, 'idempotency-key'),
          prefer: headerOf(req, 'prefer'),
          publisher: keyId,
          requestId: requestIdOf(res),
        });
        return {
          status: answer.status,
          body: answer.body,
          headers: {
            ...withEdgeRateLimits(res, answer.headers),
            ...(answer.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
          },
        };
      } catch (err) {
        throw withEdgeRateLimitsOnRefusal(res, err);
      }
    },

    async public_realtime_history_get({ environment, productId, params, query }) {
      const answer = await realtime.reads.history({ productId, environment, channel: params.channel, query });
      return { status: 200, body: answer };
    },

    async public_realtime_presence_get({ environment, productId, params }) {
      const answer = await realtime.reads.presence({ productId, environment, channel: params.channel });
      return { status: 200, body: answer };
    },

    async public_realtime_presence_stats_get({ environment, productId, params }) {
      const answer = await realtime.reads.presenceStats({ productId, environment, channel: params.channel });
      return { status: 200, body: answer };
    },
  };
}
