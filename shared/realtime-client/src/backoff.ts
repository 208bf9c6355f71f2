// Reconnect delays: exponential backoff with full jitter (delay = random() * min(max, initial * 2^n)).
// Full jitter spreads the clients a gateway dropped at once over the whole window, so they do not
// come back in waves; the cap keeps a long outage from growing the wait without bound.

export interface BackoffOptions {
  /** The window of the first retry; doubles per failed attempt. Default 500. */
  initialMs?: number;
  /** The largest window. Default 20 000. */
  maxMs?: number;
}

export const BACKOFF_INITIAL_MS_DEFAULT = 500;
export const BACKOFF_MAX_MS_DEFAULT = 20_000;

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** The options with their defaults; a negative or non-finite value is taken as its default. */
export function resolveBackoff(options: BackoffOptions = {}): Backoff {
  const valid = (v: number | undefined): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  const initialMs = valid(options.initialMs) ? options.initialMs : BACKOFF_INITIAL_MS_DEFAULT;
  const maxMs = valid(options.maxMs) ? options.maxMs : BACKOFF_MAX_MS_DEFAULT;
  return { initialMs, maxMs: Math.max(maxMs, 0) };
}

/** The window of attempt `attempt` (0 for the first retry): min(maxMs, initialMs * 2^attempt). */
export function backoffWindowMs(backoff: Backoff, attempt: number): number {
  // 2^attempt overflows to Infinity for large attempts; min() then gives the cap, as wanted.
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, attempt));
}

/** A delay drawn uniformly from [0, window): `random` returns values in [0, 1) like Math.random. */
export function backoffDelayMs(backoff: Backoff, attempt: number, random: () => number): number {
  const r = random();
  // A random source outside [0, 1) must not push the delay past the window or below zero.
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return Math.floor(unit * backoffWindowMs(backoff, attempt));
}
