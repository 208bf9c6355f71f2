// Response headers for rate-limited routes (decisions.md: `Retry-After` in whole seconds, at
// least 1, plus the IETF draft fields). Per draft-ietf-httpapi-ratelimit-headers both fields are
// Structured Field Lists whose members are a quoted policy name with parameters:
//   RateLimit-Policy: "per-ip";q=100;w=60, "publish";q=1100;w=10   (quota, window seconds)
//   RateLimit:        "per-ip";r=42;t=17, "publish";r=1000;t=3      (remaining, seconds to reset)
// so several policies applying to one request (per-IP and publish quota) share one header each.
import type { FixedWindowPolicy, RateLimitResult } from './rate-limiter.ts';

export interface RateLimitOutcome {
  policy: FixedWindowPolicy;
  result: RateLimitResult;
}

/** RFC 9651 sf-string: printable ASCII with `"` and `\` escaped; anything else cannot be sent. */
function sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) {
    throw new TypeError(`not representable as a structured-field string: ${JSON.stringify(value)}`);
  }
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** RFC 9651 sf-integer, limited here to the non-negative values these fields carry. */
function sfInteger(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0 || value > 999_999_999_999_999) {
    throw new RangeError(`not representable as a structured-field integer: ${value}`);
  }
  return String(value);
}

function policyMember(policy: FixedWindowPolicy): string {
  // The draft's window is whole seconds; round up so a client never assumes a shorter one.
  const windowSeconds = Math.max(1, Math.ceil(policy.windowMs / 1000));
  return `${sfString(policy.name)};q=${sfInteger(policy.limit)};w=${sfInteger(windowSeconds)}`;
}

export function rateLimitPolicyHeader(outcomes: readonly RateLimitOutcome[]): string {
  return outcomes.map(({ policy }) => policyMember(policy)).join(', ');
}

export function rateLimitHeader(outcomes: readonly RateLimitOutcome[]): string {
  return outcomes
    .map(
      ({ policy, result }) =>
        `${sfString(policy.name)};r=${sfInteger(result.remaining)};t=${sfInteger(result.retryAfterSeconds)}`,
    )
    .join(', ');
}

/**
 * The two headers of ONE policy, with everything that does not change per answer built once:
 * for a hot path that answers every request under the same policy (the edge's per-IP limit).
 * Same values as rateLimitPolicyHeader / rateLimitHeader with that policy alone.
 */
export function singlePolicyHeaders(policy: FixedWindowPolicy): {
  /** `RateLimit-Policy`: constant. */
  policy: string;
  /** `RateLimit` for one result. */
  rateLimit(result: RateLimitResult): string;
} {
  const head = `${sfString(policy.name)};r=`;
  return {
    policy: policyMember(policy),
    rateLimit: (result) => `${head}${sfInteger(result.remaining)};t=${sfInteger(result.retryAfterSeconds)}`,
  };
}

/**
 * `Retry-After` for the refused outcomes: the longest wait, since every refusing policy must have
 * rolled before a retry can pass. Undefined when nothing was refused.
 */
export function retryAfterHeader(outcomes: readonly RateLimitOutcome[]): string | undefined {
  const waits = outcomes.filter((o) => !o.result.allowed).map((o) => o.result.retryAfterSeconds);
  return waits.length === 0 ? undefined : sfInteger(Math.max(1, ...waits));
}

/** All rate-limit headers for one response; `Retry-After` only when a policy refused. */
export function rateLimitHeaders(outcomes: readonly RateLimitOutcome[]): Record<string, string> {
  if (outcomes.length === 0) return {};
  const headers: Record<string, string> = {
    'RateLimit-Policy': rateLimitPolicyHeader(outcomes),
    RateLimit: rateLimitHeader(outcomes),
  };
  const retryAfter = retryAfterHeader(outcomes);
  if (retryAfter !== undefined) headers['Retry-After'] = retryAfter;
  return headers;
}
