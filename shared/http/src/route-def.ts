// The route table's vocabulary. Every HTTP operation is declared once as a RouteDef; express
// routing, request validation, the OpenAPI document and the agent tools are all generated from
// the same array, so they cannot disagree.
import type { ApiError } from '@lattice/core';
import type { Request, Response } from 'express';
import type { ResponseDef } from './response-def.ts';

export type { ResponseDef } from './response-def.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const BODY_METHODS: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];

/** `management`: Bearer credential of the management API; `public_key`: product public key. */
export type AuthKind = 'management' | 'public_key' | 'none';

/** Request body cap when a route does not set its own (the spec's general 64 KiB). */
export const DEFAULT_BODY_LIMIT_BYTES = 65_536;

/** Who is calling, as established by an authenticator. */
export interface Principal {
  productId: string;
  /** e.g. `member_token`; area keys and public keys add their own kinds. */
  credentialKind: string;
  credentialId: string;
  /** Set for member tokens; null for keys that belong to the product rather than a person. */
  memberId: string | null;
  role: MemberRole | null;
  /** Area keys only: the one area the key reaches (`mail`, `realtime`). Absent: every area. */
  area?: string;
  /**
   * Area keys only: a narrowed scope (the mail key's `sending_access`). Such a key reaches only
   * routes whose `access.keyScopes` list it. Absent: every route of the key's area.
   */
  keyScope?: string;
  /**
   * Mail keys only: the id of the one mail domain the key may send from (spec "Mail sending
   * key": a domain lock). Absent or null: every verified domain of the product.
   */
  domainLock?: string | null;
}

export type MemberRole = 'owner' | 'admin' | 'member';

/**
 * Who may call an operation, beyond holding a valid credential of the product. Declared on the
 * route, enforced by the service's `authorize` hook (see RouterDeps) before the body is read.
 */
export interface RouteAccess {
  /** Member roles allowed; another member gets 403. Omitted: every member. */
  roles?: readonly MemberRole[];
  /** Narrowed area key scopes (Principal.keyScope) that reach this route too. */
  keyScopes?: readonly string[];
}

/** Resolves the caller from request headers or throws an ApiError (401/403). */
export type Authenticator = (req: Request) => Promise<Principal>;

/** What a handler gets of its request on every surface, validated against the route's schemas. */
export interface RequestParts {
  /** Validated and type-coerced path parameters (percent-decoded). */
  params: Record<string, unknown>;
  /** Validated and type-coerced query parameters, with schema defaults applied. */
  query: Record<string, unknown>;
  /** Validated body; `{}` when the route takes a body and none was sent. Undefined otherwise. */
  body: unknown;
  req: Request;
  res: Response;
}

export interface RouteContext extends RequestParts {
  operationId: string;
  /** Null only on `auth: 'none'` routes. */
  principal: Principal | null;
  /** What the route's `audit.prepare` answered, on audited routes that declare one. */
  prepared?: unknown;
}

/** One thing an audited change touched, as its audit entry names it. */
export interface AuditTarget {
  id: string | null;
  /** Names of the fields the change set (never values); empty for removals. */
  changes: readonly string[];
}

/**
 * A route that changes a product's credentials or settings. The service that serves it runs the
 * handler and the writing of its audit entries in one transaction (the management API's
 * audit-recorder.ts), so the change and its record commit or roll back together.
 */
export interface RouteAudit {
  /** What kind of thing the operation changes: `public_key`, `member`, `mail_domain`, … */
  targetType: string;
  /**
   * The things changed, from the request and the successful answer. Default: one target, the
   * answer's `id` (else the path's last parameter), with the request body's top-level field
   * names as `changes`.
   */
  targets?(ctx: RouteContext, result: RouteResult): AuditTarget[];
  /**
   * Slow checks that write nothing (DNS lookups, a target's address), run before the
   * transaction opens so it holds no connection while they wait; the answer is `ctx.prepared`.
   */
  prepare?(ctx: RouteContext): Promise<unknown>;
}

export interface RouteResult {
  status: number;
  /** Sent as JSON unless `contentType` is set, in which case it must be a string or a Buffer. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteDef {
  method: HttpMethod;
  /** Express style, relative to where the router is mounted: `/mail/webhooks/:id`. */
  path: string;
  /** Stable operation name; also the agent tool name (`organization_product_get`). */
  operationId: string;
  summary: string;
  /** What the operation does and answers, for people (reference pages) and agents (tool descriptions). */
  description: string;
  /** Product area (`organization`, `mail`, `realtime`, …); becomes the OpenAPI tag. */
  area: string;
  auth: AuthKind;
  /** Omitted: every credential that reaches the route's area. */
  access?: RouteAccess;
  /** Set on operations that change credentials or settings: each success is audited. */
  audit?: RouteAudit;
  /**
   * `$id`s of the JSON Schemas in schemas/http for each part of the request. `headers` lists the
   * request headers the handler reads (properties named as sent, `Idempotency-Key`): documented
   * as header parameters and offered as tool arguments, but not validated by the router, since
   * a header's own rules decide (RFC 7240 ignores a preference it cannot read).
   */
  request?: { params?: string; query?: string; body?: string; headers?: string };
  bodyLimitBytes?: number;
  /** Status → schema `$id` (shorthand) or a fuller description. */
  responses: Record<number, string | ResponseDef>;
  /**
   * The refusals particular to this operation, as the very errors it throws (built by its area's
   * error factories with sample arguments). The generic ones its shape implies are added by
   * route-errors.ts; together they are the operation's documented error answers, and the router
   * refuses to send any other while it checks answers (tests).
   */
  errors?: readonly ApiError[];
  /**
   * Operational endpoints (health, metrics, the document itself) go through the same routing,
   * validation and error mapping, but are not product operations: no OpenAPI entry, no tool.
   */
  operational?: boolean;
  handler(ctx: RouteContext): Promise<RouteResult> | RouteResult;
}

export function responseDef(value: string | ResponseDef): ResponseDef {
  return typeof value === 'string' ? { schema: value } : value;
}

/** Routes that make up the public catalog (OpenAPI operations and agent tools). */
export function catalogRoutes(routes: readonly RouteDef[]): RouteDef[] {
  return routes.filter((r) => !r.operational);
}
