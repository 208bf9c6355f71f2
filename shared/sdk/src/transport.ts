// One call of an operation over HTTP: the request from the flat arguments, an Idempotency-Key
// made once per call (kept across its retries), retries of 429 and 503 (retry-policy.ts), and the
// answer's JSON body or a LatticeError.
import { randomUUID } from 'node:crypto';
import { errorFromAnswer, LatticeError } from './errors.ts';
import { type Args, IDEMPOTENCY_KEY_HEADER, type OperationSpec, requestParts } from './operation.ts';
import {
  backoffMs,
  MAX_RETRY_AFTER_MS,
  RETRIED_STATUSES,
  type RetryOptions,
  type RetryPolicy,
  retryAfterMs,
  retryPolicy,
} from './retry-policy.ts';
import { SDK_VERSION } from './version.ts';

/** Per call. */
export interface RequestOptions {
  /** Aborts the call, its retries and the waits between them. */
  signal?: AbortSignal;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** Extra request headers (an `X-Request-Id` of yours, for instance). */
  headers?: Record<string, string>;
}

export interface TransportOptions extends RetryOptions {
  /** Absolute base URL the operations' paths are appended to (no trailing slash needed). */
  baseUrl: string;
  /** Sent on every request (the credential). */
  headers: Record<string, string>;
  /** Per try; default 30 s. A try that times out counts as no answer. */
  timeoutMs?: number;
  /** Default the global fetch. */
  fetch?: typeof fetch;
  /** Waits between tries (tests replace it). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source of the backoff (tests replace it). */
  random?: () => number;
}

export type Call = (op: OperationSpec, args: Args, options?: RequestOptions) => Promise<unknown>;

export const DEFAULT_TIMEOUT_MS = 30_000;

export function createTransport(options: TransportOptions): Call {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const clientPolicy = retryPolicy(options);

  return async (op, args, callOptions = {}) => {
    const policy: RetryPolicy =
      callOptions.maxRetries === undefined
        ? clientPolicy
        : retryPolicy({ ...clientPolicy, maxRetries: callOptions.maxRetries });
    const givenKey =
      args[IDEMPOTENCY_KEY_HEADER] ??
      new Headers(callOptions.headers).get(IDEMPOTENCY_KEY_HEADER) ??
      undefined;
    // Made once for the call, so every retry carries it and the operation is applied at most once.
    const callArgs =
      op.idempotent && givenKey === undefined ? { ...args, [IDEMPOTENCY_KEY_HEADER]: randomUUID() } : args;
    const parts = requestParts(op, callArgs);
    // Later sets win whatever the case of the name: the call's headers over the client's, the
    // arguments' (`Idempotency-Key`) over both.
    const headers = new Headers({
      accept: 'application/json',
      'user-agent': `lattice-sdk-node/${SDK_VERSION}`,
    });
    for (const set of [options.headers, callOptions.headers, parts.headers]) {
      for (const [name, value] of Object.entries(set ?? {})) headers.set(name, value);
    }
    if (parts.body !== undefined) headers.set('content-type', 'application/json');
    // Without an answer a try may or may not have been applied: repeat only what is harmless to repeat.
    const repeatable = op.method === 'GET' || op.idempotent === true;
    const { signal } = callOptions;

    for (let retry = 0; ; retry++) {
      signal?.throwIfAborted();
      const canRetry = retry < policy.maxRetries;
      let res: Response;
      try {
        res = await doFetch(`${base}${parts.path}`, {
          method: parts.method,
          headers,
          ...(parts.body === undefined ? {} : { body: parts.body }),
          signal: trySignal(signal, timeoutMs),
        });
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        const error = noAnswerError(op, err);
        if (!(canRetry && repeatable)) throw error;
        await sleep(backoffMs(policy, retry, random), signal);
        continue;
      }
      if (RETRIED_STATUSES.has(res.status) && canRetry) {
        const wait = retryAfterMs(res.headers.get('retry-after')) ?? backoffMs(policy, retry, random);
        if (wait <= MAX_RETRY_AFTER_MS) {
          // Not awaited: cancelling a body settles only once every reader of it has let go.
          res.body?.cancel().catch(() => {});
          await sleep(wait, signal);
          continue;
        }
      }
      const text = await res.text();
      if (res.status >= 400) throw errorFromAnswer(res.status, res.statusText, text, res.headers);
      return bodyOf(res, text);
    }
  };
}

function bodyOf(res: Response, text: string): unknown {
  if (res.status === 204 || text === '') return undefined;
  const type = res.headers.get('content-type') ?? '';
  if (!/\bjson\b/i.test(type)) return text;
  return JSON.parse(text);
}

function trySignal(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  if (!signal) return timeout;
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([signal, timeout]);
  // Node 20.0 to 20.2 have no AbortSignal.any.
  const both = new AbortController();
  for (const s of [signal, timeout]) {
    if (s.aborted) both.abort(s.reason);
    else s.addEventListener('abort', () => both.abort(s.reason), { once: true });
  }
  return both.signal;
}

function noAnswerError(op: OperationSpec, err: unknown): LatticeError {
  const timedOut = err instanceof Error && err.name === 'TimeoutError';
  const reason = err instanceof Error ? err.message : String(err);
  return new LatticeError({
    status: 0,
    code: timedOut ? 'timeout' : 'connection_failed',
    step: 'transport',
    message: `${op.id}: ${timedOut ? 'no answer in time' : `no answer (${reason})`}`,
    cause: err,
  });
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
