// The request id step and the request log line of an express app (the management API; the edge
// does the same inside its one-middleware pipeline, services/edge). One line per request at info,
// when the answer is sent or the connection goes away: the id, method, operation, path (never the
// query string, which may hold a token), status and duration. With LOG_LEVEL above info the step
// only sets the id: no listener, no timing.
import type { Logger } from '@lattice/core';
import type { Request, RequestHandler, Response } from 'express';
import { REQUEST_ID_HEADER, requestIdFrom, setRequestId } from './request-id.ts';

function pathOf(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

export interface RequestLogOptions {
  /**
   * Log the path of a request a route took (res.locals.operationId set). False on the edge, whose
   * tracking and unsubscribe paths carry signed tokens: there the operation says enough.
   */
  pathWhenMatched: boolean;
}

/** Logs `res`'s request once it is answered or abandoned. */
export function logRequestWhenDone(
  log: Logger,
  req: Request,
  res: Response,
  requestId: string,
  opts: RequestLogOptions,
): void {
  const startNs = process.hrtime.bigint();
  res.once('close', () => {
    const operationId = res.locals.operationId as string | undefined;
    log.info(
      {
        requestId,
        method: req.method,
        operationId,
        ...(operationId === undefined || opts.pathWhenMatched ? { path: pathOf(req) } : {}),
        status: res.statusCode,
        ...(res.writableFinished ? {} : { aborted: true }),
        durationMs: Number(process.hrtime.bigint() - startNs) / 1e6,
      },
      'request',
    );
  });
}

/** `log` names the app (its component); the line adds the request's fields. */
export function requestLogMiddleware(log: Logger): RequestHandler {
  return (req, res, next) => {
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    setRequestId(res, requestId);
    res.setHeader('X-Request-Id', requestId);
    if (log.isLevelEnabled('info')) {
      logRequestWhenDone(log, req, res, requestId, { pathWhenMatched: true });
    }
    next();
  };
}
