// The edge's own refusals besides the key outcomes (those come from @lattice/keys). Every one is
// an ApiError answered by the shared error mapping, and none names the environment: both edges
// answer a given request with the same body.
import { ApiError } from '@lattice/core';
import { STEP } from '@lattice/http';

export const EDGE_STEP = {
  routing: STEP.routing,
  perIpLimit: 'per_ip_limit',
  toolkit: 'toolkit',
} as const;

export const EDGE_ERRORS = {
  notFound: () => new ApiError(404, 'not_found', EDGE_STEP.routing, 'No public route matches this path'),
  methodNotAllowed: (method: string, allow: string) =>
    new ApiError(405, 'method_not_allowed', EDGE_STEP.routing, `${method} is not allowed on this path`, {
      headers: { Allow: allow },
    }),
  malformedPath: () =>
    new ApiError(400, 'bad_request', EDGE_STEP.routing, 'The request path is not validly percent-encoded'),
  rateLimited: (retryAfter: string) =>
    new ApiError(
      429,
      'rate_limited',
      EDGE_STEP.perIpLimit,
      'Too many requests from this address; retry later',
      {
        headers: { 'Retry-After': retryAfter },
      },
    ),
  notImplemented: () =>
    new ApiError(501, 'not_implemented', EDGE_STEP.toolkit, 'This public route is not available yet'),
};
