// The Kafka record header that carries the id of the HTTP request a record was produced for
// (X-Request-Id at the edge and management), so an operator can follow one request from the
// edge's log line to the actor that applied its record, and on to the records that one produced.
import type { IHeaders, KafkaMessage } from 'kafkajs';

export const REQUEST_ID_HEADER = 'lattice-request-id';

/** The headers of a record produced for this request (none without one). */
export function requestIdHeaders(requestId: string | undefined): IHeaders | undefined {
  return requestId === undefined ? undefined : { [REQUEST_ID_HEADER]: requestId };
}

/** The request id a consumed record carries, if any. */
export function requestIdOf(message: Pick<KafkaMessage, 'headers'>): string | undefined {
  const value = message.headers?.[REQUEST_ID_HEADER];
  if (value === undefined) return undefined;
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
