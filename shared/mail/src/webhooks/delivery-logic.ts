// What one attempt's answer does to its delivery and its endpoint: the spec's "Webhook delivery"
// table and decisions.md "Webhook delivery defaults", as a pure function of the delivery, the
// answer, the time the attempt ended and a random draw (the jitter).

/** Attempts in one round: the first one and one after each of the four configured delays. */
export const ATTEMPTS_PER_ROUND = 5;
/** Deliveries failed for good after their attempts, in a row, that disable an endpoint. */
export const AUTO_DISABLE_AFTER_FAILURES = 3;
/** Jitter only lengthens a delay, by up to this share of it. */
export const RETRY_JITTER_RATIO = 0.1;

export interface AttemptAnswer {
  ok: boolean;
  /** The endpoint's HTTP status; null when it never answered. */
  responseStatus: number | null;
  error: string | null;
  /** From `Retry-After` on a 429 or 503; null otherwise. */
  retryAfterMs: number | null;
}

export interface DeliveryAttempts {
  /** Attempts made before this one. */
  attempts: number;
  /** The attempt count at which the current round ends (5, or +5 per operator retry). */
  maxAttempts: number;
}

/**
 * What the attempt does to the endpoint: `reset` the failure count (a success), count a delivery
 * that `failed_for_good` after attempts (3 in a row disable it), disable it as `gone` (410), or
 * `none` (a failure with attempts left changes nothing until the delivery ends).
 */
export type EndpointEffect = 'reset' | 'failed_for_good' | 'gone' | 'none';

export interface AttemptDecision {
  status: 'succeeded' | 'pending' | 'failed';
  /** When the next attempt is due (status pending), else null. */
  nextAttemptAtMs: number | null;
  responseStatus: number | null;
  /** Why the attempt failed; null after a success. */
  lastError: string | null;
  endpoint: EndpointEffect;
}

export interface RetrySchedule {
  /** The four delays (WEBHOOK_RETRY_DELAYS_MS), each counted from the end of a failed attempt. */
  retryDelaysMs: readonly number[];
}

/**
 * The delay after failed attempt `n` of a round (1 to 4): the configured one, replaced by a longer
 * Retry-After (capped at the longest configured delay), then lengthened by 0 to 10 % jitter.
 */
export function retryDelayMs(
  schedule: RetrySchedule,
  n: number,
  retryAfterMs: number | null,
  random: number,
): number {
  const delays = schedule.retryDelaysMs;
  let delay = delays[Math.min(n, delays.length) - 1] ?? 0;
  if (retryAfterMs !== null && retryAfterMs > delay) delay = Math.min(retryAfterMs, Math.max(...delays));
  return Math.round(delay * (1 + RETRY_JITTER_RATIO * random));
}

export function decideAfterAttempt(
  delivery: DeliveryAttempts,
  answer: AttemptAnswer,
  endedAtMs: number,
  schedule: RetrySchedule,
  random: number,
): AttemptDecision {
  const made = delivery.attempts + 1;
  if (answer.ok) {
    return {
      status: 'succeeded',
      nextAttemptAtMs: null,
      responseStatus: answer.responseStatus,
      lastError: null,
      endpoint: 'reset',
    };
  }
  const failed = { responseStatus: answer.responseStatus, lastError: answer.error ?? 'failed' };
  // Svix's rule: 410 Gone means the receiver is gone for good; stop here and disable it.
  if (answer.responseStatus === 410)
    return { status: 'failed', nextAttemptAtMs: null, ...failed, endpoint: 'gone' };
  if (made >= delivery.maxAttempts) {
    return { status: 'failed', nextAttemptAtMs: null, ...failed, endpoint: 'failed_for_good' };
  }
  const inRound = made - (delivery.maxAttempts - ATTEMPTS_PER_ROUND);
  return {
    status: 'pending',
    nextAttemptAtMs: endedAtMs + retryDelayMs(schedule, inRound, answer.retryAfterMs, random),
    ...failed,
    endpoint: 'none',
  };
}
