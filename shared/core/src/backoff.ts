// Retry delays: capped exponential with proportional jitter, or an explicit schedule.

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor?: number;
  /** 0.1 means each delay is moved by up to ±10 %. */
  jitterRatio?: number;
}

export function jitter(delayMs: number, ratio: number, random: () => number = Math.random): number {
  if (ratio <= 0) return delayMs;
  const spread = delayMs * ratio;
  return Math.max(0, Math.round(delayMs - spread + random() * 2 * spread));
}

/** Delay before retry number `attempt` (1-based). */
export function backoffDelayMs(attempt: number, opts: BackoffOptions, random?: () => number): number {
  const factor = opts.factor ?? 2;
  const raw = Math.min(opts.maxMs, opts.initialMs * factor ** Math.max(0, attempt - 1));
  return jitter(raw, opts.jitterRatio ?? 0, random);
}

/** Delay after failed attempt `attempt` (1-based) from a fixed schedule; null when none remains. */
export function scheduledDelayMs(
  scheduleMs: readonly number[],
  attempt: number,
  jitterRatio = 0,
  random?: () => number,
): number | null {
  const base = scheduleMs[attempt - 1];
  return base === undefined ? null : jitter(base, jitterRatio, random);
}
