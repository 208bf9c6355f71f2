// Every route of the public edge, under `{public_url}/{product_id}/{toolkit}`, declared once:
// the coordinates key scopes name (toolkit, method, path template), whether a key is read, the
// body cap, and the JSON Schemas of schemas/http that validate each part of the request. The
// edge compiles its matcher from this table and validates with the same compiled schemas as
// the management API (request-validators.ts), so one body gets one answer on both surfaces.
// Handlers are not here: a toolkit binds them by operationId (public-handlers.ts); a route no
// toolkit serves yet answers 501 after its checks.
//
// The dashboard's page bundles this file for browsers (`@lattice/http/public-routes`: its route
// options are this table's keyed routes), so it imports nothing but response-def.ts.
import type { ResponseDef } from './response-def.ts';

export const TOOLKITS = ['mail', 'realtime'] as const;
export type Toolkit = (typeof TOOLKITS)[number];

export type PublicMethod = 'GET' | 'POST';

export interface PublicRoute {
  /** Unique name of the public operation (logs, handler binding); not an agent tool. */
  operationId: string;
  toolkit: Toolkit;
  method: PublicMethod;
  /** Template relative to the toolkit, `{name}` for a path segment: `/emails/{id}`. */
  path: string;
  /** false: no key is read or checked (tracking and unsubscribe links carry a signed token). */
  keyed: boolean;
  /** Request body cap: exactly this many bytes pass, one more is 413. On body-less routes too. */
  bodyLimitBytes: number;
  /**
   * `$id`s of the schemas of each request part; a part without one accepts nothing. `headers`
   * lists the headers the handler reads (documentation; never validated: see RouteDef).
   */
  request?: { params?: string; query?: string; body?: string; headers?: string };
  /**
   * How the body `request.body` describes arrives: JSON (the default), or a form read into an
   * object of strings (x-www-form-urlencoded or multipart/form-data: RFC 8058's one-click POST).
   */
  bodyType?: 'json' | 'form';
  /** Status → response schema `$id` (shorthand) or a fuller description. */
  responses?: Record<number, string | ResponseDef>;
}

/** Spec "Limits → Sizes": POST /messages. */
export const PUBLISH_BODY_LIMIT_BYTES = 262_144;
/** Spec "Limits → Sizes": every other realtime route. */
export const REALTIME_BODY_LIMIT_BYTES = 65_536;
/** docs/mail.md: the send body cap. */
export const MAIL_SEND_BODY_LIMIT_BYTES = 1_048_576;
/** Routes whose cap neither names: the platform's general 64 KiB. */
const GENERAL_BODY_LIMIT_BYTES = 65_536;

type RouteFields = Pick<PublicRoute, 'request' | 'responses' | 'bodyType'> & { bodyLimitBytes?: number };

/** A keyed realtime route: 64 KiB unless it says otherwise. */
function realtime(operationId: string, method: PublicMethod, path: string, rest: RouteFields): PublicRoute {
  return {
    operationId,
    toolkit: 'realtime',
    method,
    path,
    keyed: true,
    bodyLimitBytes: REALTIME_BODY_LIMIT_BYTES,
    ...rest,
  };
}

/** A mail route; keyless ones are the links in emails, gated by their signed token. */
function mail(
  operationId: string,
  method: PublicMethod,
  path: string,
  keyed: boolean,
  rest: RouteFields = {},
): PublicRoute {
  return {
    operationId,
    toolkit: 'mail',
    method,
    path,
    keyed,
    bodyLimitBytes: GENERAL_BODY_LIMIT_BYTES,
    ...rest,
  };
}

const channel = { params: 'realtime-channel-params' } as const;
// A link's query is accepted and ignored: mail clients and scanners append parameters.
const link = { request: { params: 'mail-link-params', query: 'mail-link-query' } } as const;

// The one-click unsubscribe takes RFC 8058's form body (`List-Unsubscribe=One-Click`); every other
// route with a body takes JSON.
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  mail('public_mail_email_send', 'POST', '/emails', true, {
    bodyLimitBytes: MAIL_SEND_BODY_LIMIT_BYTES,
    request: { body: 'mail-email-send', headers: 'mail-email-send-headers' },
    responses: { 202: 'mail-email-accepted' },
  }),
  mail('public_mail_email_get', 'GET', '/emails/{id}', true, {
    request: { params: 'mail-email-params' },
    responses: { 200: 'mail-email' },
  }),
  mail('public_mail_open_track', 'GET', '/t/open/{token}', false, link),
  mail('public_mail_click_track', 'GET', '/t/click/{token}', false, link),
  mail('public_mail_unsubscribe_page', 'GET', '/unsubscribe/{token}', false, link),
  mail('public_mail_unsubscribe', 'POST', '/unsubscribe/{token}', false, {
    request: { params: 'mail-link-params', query: 'mail-link-query', body: 'mail-unsubscribe-form' },
    bodyType: 'form',
  }),
  realtime('public_realtime_token_issue', 'POST', '/tokens/issue', {
    request: { body: 'realtime-token-request' },
    responses: { 200: 'realtime-token' },
  }),
  realtime('public_realtime_message_publish', 'POST', '/messages', {
    bodyLimitBytes: PUBLISH_BODY_LIMIT_BYTES,
    request: { body: 'realtime-message-publish', headers: 'realtime-message-publish-headers' },
    responses: { 201: 'realtime-message-published', 202: 'realtime-message-accepted' },
  }),
  realtime('public_realtime_history_get', 'GET', '/channels/{channel}/history', {
    request: { ...channel, query: 'realtime-history-query' },
    responses: { 200: 'realtime-history' },
  }),
  realtime('public_realtime_presence_get', 'GET', '/channels/{channel}/presence', {
    request: channel,
    responses: { 200: 'realtime-presence' },
  }),
  realtime('public_realtime_presence_stats_get', 'GET', '/channels/{channel}/presence/stats', {
    request: channel,
    responses: { 200: 'realtime-presence-stats' },
  }),
];

export function isToolkit(value: unknown): value is Toolkit {
  return typeof value === 'string' && (TOOLKITS as readonly string[]).includes(value);
}

export function findKeyedRoute(toolkit: string, method: string, path: string): PublicRoute | undefined {
  return PUBLIC_ROUTES.find(
    (r) => r.keyed && r.toolkit === toolkit && r.method === method && r.path === path,
  );
}

export interface RouteMatch {
  route: PublicRoute;
  params: Record<string, string>;
}

/**
 * Matches a request path below the toolkit (`/emails/123`) to a route; undefined when none. The
 * reference the edge's compiled matcher is held to (services/edge route-matcher.test.ts).
 */
export function matchPublicRoute(toolkit: string, method: string, subPath: string): RouteMatch | undefined {
  const segments = subPath.split('/');
  for (const route of PUBLIC_ROUTES) {
    if (route.toolkit !== toolkit || route.method !== method) continue;
    const template = route.path.split('/');
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < template.length && ok; i++) {
      const t = template[i]!;
      const s = segments[i]!;
      if (t.startsWith('{') && t.endsWith('}')) {
        if (s === '') ok = false;
        else params[t.slice(1, -1)] = s;
      } else if (t !== s) ok = false;
    }
    if (ok) return { route, params };
  }
  return undefined;
}

/** Methods any route answers at this path (for 405 Allow); empty when the path is unknown. */
export function allowedMethods(toolkit: string, subPath: string): PublicMethod[] {
  const methods = new Set<PublicMethod>();
  for (const method of ['GET', 'POST'] as const)
    if (matchPublicRoute(toolkit, method, subPath)) methods.add(method);
  return [...methods];
}
