// When a call is tried again. 429 (a limit: nothing was done) and 503 (a part of Lattice is
// unavailable) are retried on every operation; an operation that reads an Idempotency-Key carries
// the same key on each try, so a retried send or publish is applied at most once. A request that
// got no answer at all is retried only where repeating it is harmless: reads and keyed operations.

export interface RetryOptions {
  /** Tries after the first one; default 3. 0 turns retries off. */
  maxRetries?: number;
  /** First backoff delay (doubling per try, with jitter); default 500 ms. */
  baseDelayMs?: number;
  /** Cap of one backoff delay; default 8 s. */
  maxDelayMs?: number;
}

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_BASE_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the error is thrown at once. */
export const MAX_RETRY_AFTER_MS = 60_000;

export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new RangeError('maxRetries must be an integer ≥ 0');
  return {
    maxRetries,
    baseDelayMs: options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
  };
}

/** The backoff before try `retry` (0 for the first retry): exponential, capped, between half and all of it. */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(full / 2 + (random() * full) / 2);
}

/**
 * A `Retry-After` value in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3);
 * undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null, nowMs: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
