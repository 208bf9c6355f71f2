// The edge's own refusals besides the key outcomes (those come from @lattice/keys). Every one is
// an ApiError answered by the shared error mapping, and none names the environment: both edges
// answer a given request with the same body.
import { ApiError } from '@lattice/core';
import { HTTP_ERRORS, STEP } from '@lattice/http';

export const EDGE_STEP = {
  routing: STEP.routing,
  perIpLimit: 'per_ip_limit',
  toolkit: STEP.toolkit,
} as const;

export const EDGE_ERRORS = {
  notFound: () => HTTP_ERRORS.notFound('No public route matches this path'),
  methodNotAllowed: HTTP_ERRORS.methodNotAllowed,
  malformedPath: () => HTTP_ERRORS.badRequest('The request path is not validly percent-encoded'),
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
  notImplemented: HTTP_ERRORS.notImplemented,
};
