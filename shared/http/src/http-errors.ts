// The generic refusals of every HTTP surface (management API, public edge, and the toolkits'
// routes on both), in one catalog so a given request gets the same status, code and step
// wherever it arrives. Toolkit-specific refusals (a namespace that is not registered, a quota)
// stay with their toolkit; these are the ones about the request itself.
import { ApiError, type FieldError } from '@lattice/core';

export const STEP = {
  routing: 'routing',
  bodyParsing: 'body_parsing',
  validation: 'validation',
  authentication: 'authentication',
  /** A public route whose toolkit does not serve it (yet). */
  toolkit: 'toolkit',
  /** A sealed value the operation needs (secrets_unavailable). */
  secrets: 'secrets',
  internal: 'internal',
} as const;

export const HTTP_ERRORS = {
  validation: (fields: FieldError[]) =>
    new ApiError(400, 'validation_error', STEP.validation, 'Request validation failed', { fields }),
  invalidJson: () => new ApiError(400, 'invalid_json', STEP.bodyParsing, 'Request body is not valid JSON'),
  unexpectedBody: () =>
    new ApiError(400, 'unexpected_body', STEP.bodyParsing, 'This operation takes no request body'),
  invalidForm: () => new ApiError(400, 'invalid_form', STEP.bodyParsing, 'Request body is not a valid form'),
  incompleteBody: () =>
    new ApiError(400, 'incomplete_body', STEP.bodyParsing, 'Request body ended before Content-Length'),
  payloadTooLarge: (limitBytes: unknown) =>
    new ApiError(413, 'payload_too_large', STEP.bodyParsing, `Request body exceeds ${limitBytes} bytes`),
  unsupportedMediaType: (message = 'Request body must be application/json') =>
    new ApiError(415, 'unsupported_media_type', STEP.bodyParsing, message),
  unsupportedCharset: () =>
    new ApiError(415, 'unsupported_media_type', STEP.bodyParsing, 'Request body must be UTF-8 JSON'),
  unsupportedContentEncoding: () =>
    new ApiError(
      415,
      'unsupported_content_encoding',
      STEP.bodyParsing,
      'Content-Encoding is not supported; send the body uncompressed',
    ),
  notFound: (message = 'No operation matches this path') =>
    new ApiError(404, 'not_found', STEP.routing, message),
  methodNotAllowed: (method: string, allow: string) =>
    new ApiError(405, 'method_not_allowed', STEP.routing, `${method} is not allowed on this path`, {
      headers: { Allow: allow },
    }),
  badRequest: (message = 'Malformed request') => new ApiError(400, 'bad_request', STEP.routing, message),
  /** A credential store that cannot answer is the server's trouble: retry, not a 401. */
  credentialsUnavailable: (cause: unknown) =>
    new ApiError(
      503,
      'service_unavailable',
      STEP.authentication,
      'Credentials cannot be checked right now; retry with backoff.',
      { headers: { 'retry-after': '1' }, cause },
    ),
  /**
   * A value sealed with the platform keyring (a token signing key, a DKIM key, a webhook secret)
   * does not open with LATTICE_SECRET_KEYS: an operator's trouble, counted on `/metrics` and said
   * by `/healthz` (docs/operations.md "Secrets at start").
   */
  secretsUnavailable: (cause?: unknown) =>
    new ApiError(
      503,
      'secrets_unavailable',
      STEP.secrets,
      'A secret this operation needs cannot be opened with the platform’s keys; retry later.',
      { headers: { 'retry-after': '30' }, ...(cause === undefined ? {} : { cause }) },
    ),
  notImplemented: () =>
    new ApiError(501, 'not_implemented', STEP.toolkit, 'This public route is not available yet'),
  internal: () => new ApiError(500, 'internal_error', STEP.internal, 'Internal server error'),
};
