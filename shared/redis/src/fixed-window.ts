// Window arithmetic shared by every limiter implementation, so they cannot drift apart.
import type { FixedWindowPolicy, RateLimitResult } from './rate-limiter.ts';

export interface WindowPosition {
  /** Start of the window holding `nowMs`: a multiple of windowMs since the epoch. */
  startMs: number;
  /** Milliseconds until the next window starts, in (0, windowMs]. */
  resetMs: number;
}

export function windowAt(nowMs: number, windowMs: number): WindowPosition {
  const startMs = Math.floor(nowMs / windowMs) * windowMs;
  return { startMs, resetMs: startMs + windowMs - nowMs };
}

/** Whole seconds until the window rolls; at least 1 because `Retry-After: 0` invites a hot retry. */
export function retryAfterSecondsOf(resetMs: number): number {
  return Math.max(1, Math.ceil(resetMs / 1000));
}

export function assertPolicy(policy: FixedWindowPolicy): void {
  if (!Number.isSafeInteger(policy.limit) || policy.limit < 0) {
    throw new RangeError(`rate limit ${policy.name}: limit must be an integer >= 0`);
  }
  if (!Number.isSafeInteger(policy.windowMs) || policy.windowMs < 1) {
    throw new RangeError(`rate limit ${policy.name}: windowMs must be an integer >= 1`);
  }
}

/** A bad cost is a programming error, not a limit decision; it throws rather than refuse. */
export function assertCost(cost: number): void {
  if (!Number.isSafeInteger(cost) || cost < 0) {
    throw new RangeError(`rate limit cost must be an integer >= 0, got ${cost}`);
  }
}

export function resultOf(limit: number, count: number, allowed: boolean, resetMs: number): RateLimitResult {
  return {
    allowed,
    count,
    limit,
    remaining: Math.max(0, limit - count),
    resetMs,
    retryAfterSeconds: retryAfterSecondsOf(resetMs),
  };
}
