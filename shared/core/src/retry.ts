// Retry with backoff: the one loop behind the actor host's and the channel actor's retries. What
// differs between callers (which errors stop the retries, what is logged, a delay the error asks
// for) is said by their beforeRetry; the waiting goes through the Scheduler, so tests run it on
// manual time.
import { type BackoffOptions, backoffDelayMs } from './backoff.ts';
import type { Scheduler } from './scheduler.ts';

export interface RetryOptions {
  scheduler: Pick<Scheduler, 'sleep'>;
  backoff: BackoffOptions;
  /** Attempts in all, the first included; the last one's error is thrown. Default: no bound. */
  maxAttempts?: number;
  /**
   * Called after each failed attempt that will be retried, before the wait, with the delay the
   * backoff chose. Throw to stop retrying (that error is what the retry throws); return a number
   * to wait that long instead (0 or less: retry at once).
   */
  beforeRetry?: (err: unknown, attempt: number, delayMs: number) => number | undefined;
  /** For the jitter; tests pass a fixed one. */
  random?: () => number;
}

/** Runs `operation` (told its 1-based attempt number) until it resolves. */
export async function retryWithBackoff<T>(
  operation: (attempt: number) => Promise<T>,
  opts: RetryOptions,
): Promise<T> {
  const maxAttempts = opts.maxAttempts ?? Number.POSITIVE_INFINITY;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (err) {
      if (attempt >= maxAttempts) throw err;
      const backoffMs = backoffDelayMs(attempt, opts.backoff, opts.random);
      const delayMs = opts.beforeRetry?.(err, attempt, backoffMs) ?? backoffMs;
      if (delayMs > 0) await opts.scheduler.sleep(delayMs);
    }
  }
}
