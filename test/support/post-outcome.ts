// One JSON POST of a load client (the broker-loss test, the soak), bounded by a timeout (a
// request still unanswered then is a hang, which the caller reports), its answer recorded with
// when it came: status, id, error code, Retry-After, or the transport problem.

/** A request unanswered after this is a hang (the platform's own Kafka bound is 10 s). */
export const REQUEST_BOUND_MS = 15_000;

export interface Outcome {
  /** The client's sequence number (per channel, or per sender). */
  seq: number;
  /** Where it was sent (which process a failed connection was to). */
  url: string;
  startedAtMs: number;
  answeredAtMs: number;
  /** HTTP status, or 0 when the request did not answer within REQUEST_BOUND_MS or failed. */
  status: number;
  /** The message or email id of a 202. */
  id: string | null;
  /** The error body's code of a refusal. */
  code: string | null;
  retryAfter: string | null;
  /** Transport failure or timeout, or an unexpected body. */
  problem: string | null;
}

/** Where a client sends: the operation's full URL and the Bearer credential. */
export interface LoadTarget {
  url: string;
  token: string;
}

export async function postOutcome(
  target: LoadTarget,
  body: unknown,
  seq: number,
  headers: Record<string, string> = {},
): Promise<Outcome> {
  const startedAtMs = Date.now();
  const outcome: Outcome = {
    seq,
    url: target.url,
    startedAtMs,
    answeredAtMs: 0,
    status: 0,
    id: null,
    code: null,
    retryAfter: null,
    problem: null,
  };
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
    const text = await res.text();
    outcome.status = res.status;
    outcome.retryAfter = res.headers.get('retry-after');
    const json = JSON.parse(text) as { id?: string; error?: { code?: string } };
    outcome.id = json.id ?? null;
    outcome.code = json.error?.code ?? null;
  } catch (err) {
    // fetch's own message is only "fetch failed": the cause says refused, reset or closed.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    outcome.problem =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${REQUEST_BOUND_MS} ms`
        : `${String(err)}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
  }
  outcome.answeredAtMs = Date.now();
  return outcome;
}
