// Request ids (X-Request-Id): the edge and the management API take the caller's id when it is
// printable ASCII of at most 128 characters (a proxy's or the client's, so their logs and ours
// join up), make a UUID otherwise, answer it in X-Request-Id, name it in their request log line
// and send it with every Kafka record they produce for the request (the `lattice-request-id`
// header), so one id leads from the edge's log to the actor that applied the record.
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';

/** Lower case, as Node hands request fields over and as HTTP/2 sends them. */
export const REQUEST_ID_HEADER = 'x-request-id';
export const REQUEST_ID_MAX_LENGTH = 128;

// Visible ASCII and the space: a valid field value as it is, safe in a log line, and never a
// line break or a control character that could forge one.
const ACCEPTABLE = /^[\x20-\x7e]{1,128}$/;

/** The caller's id when acceptable, else a new UUID. */
export function requestIdFrom(presented: string | string[] | undefined): string {
  return typeof presented === 'string' && ACCEPTABLE.test(presented) ? presented : randomUUID();
}

/** Makes `requestId` the request's id for the handlers (requestIdOf) and the log line. */
export function setRequestId(res: Response, requestId: string): void {
  res.locals.requestId = requestId;
}

/** The id of the request `res` answers; undefined where no request id step ran (unit tests). */
export function requestIdOf(res: Response): string | undefined {
  return res.locals.requestId as string | undefined;
}
