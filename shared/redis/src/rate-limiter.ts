// Fixed-window rate limiting, one interface for every backend (Redis, in-process, Redis with
// in-process fallback). Windows are aligned to the clock (a 60 s window runs 12:00:00 to
// 12:01:00), so every edge node agrees on when a window rolls without talking to each other.

export interface FixedWindowPolicy {
  /** Names the policy in keys and headers (`per-ip`, `publish`); [a-z0-9_-]. */
  name: string;
  /** Hard limit: cost units allowed per window. */
  limit: number;
  windowMs: number;
}

export interface RateLimitResult {
  /** False when the cost would exceed the limit; a refused call consumes nothing. */
  allowed: boolean;
  /** Units consumed in the current window, after this call. */
  count: number;
  limit: number;
  /** Units still available in the current window (never negative). */
  remaining: number;
  /** Milliseconds until the current window rolls, in (0, windowMs]. */
  resetMs: number;
  /** Whole seconds until the window rolls, at least 1 (`Retry-After`, `RateLimit` t). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  readonly policy: FixedWindowPolicy;
  /**
   * Takes `cost` units (default 1, a non-negative integer; 0 only reads) from the bucket's
   * current window, or refuses without taking anything when that would exceed the limit.
   */
  consume(bucketId: string, cost?: number): Promise<RateLimitResult>;
  /**
   * Optional fast path of limiters that hold local state (the leased one): the same answer
   * consume() would give, when it is known without I/O, having taken the cost; undefined (and
   * nothing taken) when only consume() can tell.
   */
  tryConsume?(bucketId: string, cost?: number): RateLimitResult | undefined;
}
