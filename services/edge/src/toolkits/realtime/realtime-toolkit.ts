// The realtime toolkit's public routes (decisions.md "Public edge routes"), registered with the
// edge's toolkit registry. The edge has already applied the per-IP limit, matched the route,
// checked the public key and stripped it; the product comes from the path and the environment
// is the edge's own. Every route runs the same services as the management API
// (@lattice/realtime createRealtimeHttp), so both surfaces answer alike.
//   POST /tokens/issue                        200 {token, gatewayUrl, expiresAt}
//   POST /messages                            202 {id, channel}; per-product publish quota
//   GET  /channels/{channel}/history          200 {data, epoch, top_offset, recovered}
//   GET  /channels/{channel}/presence         200 {data}
//   GET  /channels/{channel}/presence/stats   200 {members, connections}
import { ApiError } from '@lattice/core';
import { REALTIME_ERRORS, type RealtimeHttp } from '@lattice/realtime';
import type { Request, Response } from 'express';
import type { ToolkitHandler, ToolkitRegistry } from '../../toolkit-registry.ts';
import { OTHER_ROUTES_BODY_LIMIT_BYTES, PUBLISH_BODY_LIMIT_BYTES } from './limits.ts';
import { readJsonBody, refuseBody } from './request-body.ts';

export interface RealtimeToolkitDeps {
  /** The shared realtime services (startRealtimeHttpRuntime(...).http). */
  realtime: RealtimeHttp;
}

const RATE_LIMIT_FIELDS = ['RateLimit-Policy', 'RateLimit'] as const;

/**
 * Both limits apply to a publish (per-IP and the product's quota): the edge set the per-IP
 * members of the RateLimit fields; the quota's are appended to the same Structured Field Lists.
 */
function withEdgeRateLimits(res: Response, headers: Record<string, string>): Record<string, string> {
  const merged = { ...headers };
  for (const field of RATE_LIMIT_FIELDS) {
    const existing = res.getHeader(field);
    const mine = headers[field];
    if (typeof existing === 'string' && existing !== '' && mine !== undefined)
      merged[field] = `${existing}, ${mine}`;
  }
  return merged;
}

/** Query parameters as sent: a repeated one becomes an array (refused by validation). */
function queryOf(req: Request): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const search = new URL(req.originalUrl, 'http://edge.invalid').searchParams;
  for (const [key, value] of search) {
    const prior = out[key];
    out[key] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return out;
}

function headerOf(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function registerRealtimeToolkit(registry: ToolkitRegistry, deps: RealtimeToolkitDeps): void {
  const { realtime } = deps;

  const issueToken: ToolkitHandler = async ({ environment, productId, req, res }) => {
    const body = await readJsonBody(req, res, OTHER_ROUTES_BODY_LIMIT_BYTES);
    const answer = await realtime.tokens.issue({ productId, environment, body });
    res.status(200).set('Cache-Control', 'no-store').json(answer);
  };

  const publish: ToolkitHandler = async ({ environment, productId, keyId, req, res }) => {
    const body = await readJsonBody(req, res, PUBLISH_BODY_LIMIT_BYTES);
    try {
      const answer = await realtime.messages.publish({
        productId,
        environment,
        body,
        idempotencyKey: headerOf(req, 'idempotency-key'),
        publisher: keyId,
      });
      res.status(answer.status).set(withEdgeRateLimits(res, answer.headers));
      if (answer.replayed) res.set('Idempotent-Replayed', 'true');
      res.json(answer.body);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        throw new ApiError(err.status, err.code, err.step, err.message, {
          headers: withEdgeRateLimits(res, err.headers),
        });
      }
      throw err;
    }
  };

  const history: ToolkitHandler = async ({ environment, productId, params, req, res }) => {
    await refuseBody(req, res, OTHER_ROUTES_BODY_LIMIT_BYTES);
    const answer = await realtime.reads.history({
      productId,
      environment,
      channel: params.channel,
      query: queryOf(req),
    });
    res.status(200).json(answer);
  };

  const noQuery = (req: Request) => {
    const fields = Object.keys(queryOf(req)).map((k) => ({ path: `query.${k}`, message: 'is not allowed' }));
    if (fields.length > 0) throw REALTIME_ERRORS.validation(fields);
  };

  const presence: ToolkitHandler = async ({ environment, productId, params, req, res }) => {
    await refuseBody(req, res, OTHER_ROUTES_BODY_LIMIT_BYTES);
    noQuery(req);
    res.status(200).json(await realtime.reads.presence({ productId, environment, channel: params.channel }));
  };

  const presenceStats: ToolkitHandler = async ({ environment, productId, params, req, res }) => {
    await refuseBody(req, res, OTHER_ROUTES_BODY_LIMIT_BYTES);
    noQuery(req);
    res
      .status(200)
      .json(await realtime.reads.presenceStats({ productId, environment, channel: params.channel }));
  };

  registry.register('realtime', 'POST', '/tokens/issue', issueToken);
  registry.register('realtime', 'POST', '/messages', publish);
  registry.register('realtime', 'GET', '/channels/{channel}/history', history);
  registry.register('realtime', 'GET', '/channels/{channel}/presence', presence);
  registry.register('realtime', 'GET', '/channels/{channel}/presence/stats', presenceStats);
}
