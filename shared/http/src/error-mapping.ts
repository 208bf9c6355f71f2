// The one place where failures become HTTP answers. ApiError carries its own status and code;
// the body parser's and router's client errors are translated; anything else is a bug and is
// answered with a generic 500 whose details go only to the log.
import { ApiError, type Logger } from '@lattice/core';
import type { ErrorRequestHandler } from 'express';

export const STEP = {
  routing: 'routing',
  bodyParsing: 'body_parsing',
  validation: 'validation',
  internal: 'internal',
} as const;

interface HttpishError {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  limit?: unknown;
}

/** The ApiError a failure is answered with; null when it is not a client error we recognise. */
export function clientErrorOf(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (typeof err !== 'object' || err === null) return null;
  const e = err as HttpishError;
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  switch (e.type) {
    case 'entity.too.large':
      return new ApiError(
        413,
        'payload_too_large',
        STEP.bodyParsing,
        `Request body exceeds ${e.limit} bytes`,
      );
    case 'entity.parse.failed':
      return new ApiError(400, 'invalid_json', STEP.bodyParsing, 'Request body is not valid JSON');
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported_media_type', STEP.bodyParsing, 'Request body must be UTF-8 JSON');
    case 'encoding.unsupported':
      return new ApiError(
        415,
        'unsupported_content_encoding',
        STEP.bodyParsing,
        'Content-Encoding is not supported; send the body uncompressed',
      );
    case 'request.aborted':
    case 'request.size.invalid':
      return new ApiError(
        400,
        'incomplete_body',
        STEP.bodyParsing,
        'Request body ended before Content-Length',
      );
    default:
      // e.g. the router failing to percent-decode a path parameter.
      return new ApiError(400, 'bad_request', STEP.routing, 'Malformed request');
  }
}

export function internalError(): ApiError {
  return new ApiError(500, 'internal_error', STEP.internal, 'Internal server error');
}

export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      // Too late for an error body; let express close the connection.
      next(err);
      return;
    }
    let apiError = clientErrorOf(err);
    const operationId = res.locals.operationId as string | undefined;
    if (!apiError) {
      logger.error({ err, operationId, method: req.method, path: req.path }, 'unhandled error');
      apiError = internalError();
    } else if (apiError.status >= 500) {
      logger.error({ err, operationId, method: req.method, path: req.path }, 'request failed');
    }
    res.status(apiError.status).set(apiError.headers).json(apiError.toBody());
  };
}
