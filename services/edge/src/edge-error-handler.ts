// Errors become answers through the shared mapping of @lattice/http (clientErrorOf,
// internalError), so the edge's bodies are the platform's. The logging differs from the
// management API's errorMiddleware on purpose: the edge's 5xx refusals (503 before the first
// key snapshot, 501 on routes no toolkit serves yet) are expected answers that can arrive by
// the thousand per second and are counted in metrics, not logged one by one. Only failures
// that are not ApiErrors (bugs) are logged, at error.
import type { Logger } from '@lattice/core';
import { clientErrorOf, internalError } from '@lattice/http';
import type { ErrorRequestHandler } from 'express';

export function edgeErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      // Too late for an error body; express closes the connection.
      next(err);
      return;
    }
    let apiError = clientErrorOf(err);
    if (!apiError) {
      // The path is logged (it names the product), never the headers (they may carry a key).
      logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
      apiError = internalError();
    }
    res
      .status(apiError.status)
      .set(apiError.headers)
      .set('Cache-Control', 'no-store')
      .json(apiError.toBody());
  };
}
