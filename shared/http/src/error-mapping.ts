// The one place where failures become HTTP answers. ApiError carries its own status and code;
// the body parser's and router's client errors are translated, and a sealed value that does not
// open (SecretKeyError) is 503 secrets_unavailable; anything else is a bug and is answered with a
// generic 500 whose details go only to the log.
import { ApiError, type Logger, SecretKeyError } from '@lattice/core';
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
  if (err instanceof SecretKeyError) return HTTP_ERRORS.secretsUnavailable(err);
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

export interface ErrorMiddlewareOptions {
  /**
   * Log ApiErrors of status 5xx too (the management API: each is rare and worth a line). The
   * edge's 5xx refusals (503 before the first key snapshot, 501 on routes no toolkit serves yet)
   * are expected answers that can arrive by the thousand per second and are counted in metrics
   * instead. Failures that are not ApiErrors (bugs) are always logged, at error.
   */
  logApiErrors: boolean;
  /** Set on every error answer (the edge: `Cache-Control: no-store`). */
  headers?: Record<string, string>;
}

export function errorMiddleware(logger: Logger, opts: ErrorMiddlewareOptions): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      // Too late for an error body; let express close the connection.
      next(err);
      return;
    }
    let apiError = clientErrorOf(err);
    const operationId = res.locals.operationId as string | undefined;
    const requestId = res.locals.requestId as string | undefined;
    // The path is logged (it may name the product), never the headers (they may carry a key).
    if (!apiError) {
      logger.error({ err, requestId, operationId, method: req.method, path: req.path }, 'unhandled error');
      apiError = internalError();
    } else if (apiError.status >= 500 && opts.logApiErrors) {
      logger.error({ err, requestId, operationId, method: req.method, path: req.path }, 'request failed');
    }
    res.status(apiError.status).set(apiError.headers);
    if (opts.headers) res.set(opts.headers);
    res.json(apiError.toBody());
  };
}
