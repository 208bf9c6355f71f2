// The one place where failures become HTTP answers. ApiError carries its own status and code;
// the body parser's and router's client errors are translated; anything else is a bug and is
// answered with a generic 500 whose details go only to the log.
import { ApiError, type Logger } from '@lattice/core';
import type { ErrorRequestHandler } from 'express';
import { HTTP_ERRORS } from './http-errors.ts';

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
      return HTTP_ERRORS.payloadTooLarge(e.limit);
    case 'entity.parse.failed':
      return HTTP_ERRORS.invalidJson();
    case 'charset.unsupported':
      return HTTP_ERRORS.unsupportedCharset();
    case 'encoding.unsupported':
      return HTTP_ERRORS.unsupportedContentEncoding();
    case 'request.aborted':
    case 'request.size.invalid':
      return HTTP_ERRORS.incompleteBody();
    default:
      // e.g. the router failing to percent-decode a path parameter.
      return HTTP_ERRORS.badRequest();
  }
}

export function internalError(): ApiError {
  return HTTP_ERRORS.internal();
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
