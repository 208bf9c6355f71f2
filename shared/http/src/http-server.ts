// Every HTTP role's server (management, edge, gateway, the metrics ports): Node's http.Server with
// the slow-request cuts of config.httpTimeouts (docs/operations.md "Slow requests"), and the standard error
// body for what Node's parser refuses (client-error.ts).
//
// A request whose headers have not all arrived within `headersMs`, or that has not been received
// whole (body included) within `requestMs`, is answered 408 `request_timeout` with the JSON error
// body and its connection closed, so a client that trickles bytes cannot hold a connection (and
// its share of the process) for minutes. Node checks its connections every
// `connectionsCheckingInterval`: a twentieth of the headers' cut, at most a second, so a cut lands
// within 5% (at most a second) after its limit. An upgraded connection (a WebSocket) is no longer
// a request and is not cut; the gateway bounds its first frame itself.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { HttpTimeouts, Logger } from '@lattice/core';
import { attachClientErrorHandler } from './client-error.ts';

/** How often Node looks for requests past their cut. */
export function connectionsCheckingIntervalOf(timeouts: HttpTimeouts): number {
  return Math.max(10, Math.min(1000, Math.floor(timeouts.headersMs / 20)));
}

export function createHttpServer(
  handler: RequestListener | undefined,
  timeouts: HttpTimeouts,
  logger: Logger,
): Server {
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: connectionsCheckingIntervalOf(timeouts),
    },
    handler,
  );
  attachClientErrorHandler(server, logger);
  return server;
}
