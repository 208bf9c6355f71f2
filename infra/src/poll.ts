// Readiness is observed, never assumed: poll a probe until it answers, print a progress line
// while waiting, and fail fast if the process we are waiting for has died.
import { type Logger, sleep } from '@lattice/core';

export interface PollOptions {
  /** Shown in progress and error lines, e.g. "Kafka at 127.0.0.1:9092". */
  what: string;
  /** Resolves true once ready; a rejection counts as "not yet". */
  probe: () => Promise<boolean>;
  timeoutMs: number;
  logger: Logger;
  intervalMs?: number;
  progressEveryMs?: number;
  /** Returns a reason when waiting is pointless (the process exited); checked every round. */
  failure?: () => Promise<string | undefined>;
}

/** Resolves with the time waited in ms; rejects on timeout or failure. */
export async function pollUntilReady(opts: PollOptions): Promise<number> {
  const { what, probe, timeoutMs, logger, intervalMs = 500, progressEveryMs = 5000, failure } = opts;
  const startedMs = Date.now();
  let nextProgressMs = startedMs + progressEveryMs;
  let lastError = '';
  for (;;) {
    try {
      if (await probe()) return Date.now() - startedMs;
      lastError = '';
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    const reason = failure ? await failure() : undefined;
    if (reason) throw new Error(`${what} will not become ready: ${reason}`);
    const now = Date.now();
    const waitedS = Math.round((now - startedMs) / 1000);
    if (now - startedMs >= timeoutMs) {
      throw new Error(`${what} not ready after ${waitedS}s${lastError ? ` (last error: ${lastError})` : ''}`);
    }
    if (now >= nextProgressMs) {
      logger.info({ waitedS, lastError: lastError || undefined }, `waiting for ${what}`);
      nextProgressMs = now + progressEveryMs;
    }
    await sleep(intervalMs);
  }
}
