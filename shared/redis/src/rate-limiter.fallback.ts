// Redis first, in-process when Redis fails (DESIGN principle 5: degrade gracefully on limits,
// never a 500 and never an open door). A failed or slow Redis call is answered by the local
// limiter; after a failure Redis is skipped for retryIntervalMs and then probed by one call at a
// time (a small circuit breaker), so an outage does not add a timeout to every request.
//
// Local counts are per node: with N edge nodes the effective limit during an outage is up to N
// times the local limit. Give `local` a smaller limit if that matters for the policy.
import { type Clock, errorMessage, type Logger, systemClock } from '@lattice/core';
import { TIMED_OUT, withTimeout } from './call-timeout.ts';
import { assertCost } from './fixed-window.ts';
import type { RateLimiter, RateLimitResult } from './rate-limiter.ts';

export interface FallbackRateLimiterOptions {
  primary: RateLimiter;
  local: RateLimiter;
  logger: Logger;
  /**
   * Called once for every call answered by the local limiter: a metrics counter, so that an
   * outage answered locally is seen (DESIGN principle 5: logged and counted).
   */
  countFallback: (policyName: string) => void;
  /**
   * A Redis answer slower than this is abandoned for the local one. Default 250. 0 sets no timer,
   * for a primary that bounds its own Redis calls (the leased limiter, whose calls mostly never
   * wait for Redis: a timer per call would cost more than the call).
   */
  timeoutMs?: number;
  /** How long Redis is skipped after a failure before the next probe. Default 1000. */
  retryIntervalMs?: number;
  clock?: Clock;
}

export interface FallbackRateLimiter extends RateLimiter {
  /** True while answers come from the local limiter (for readiness and metrics). */
  isDegraded(): boolean;
}

export function createFallbackRateLimiter(opts: FallbackRateLimiterOptions): FallbackRateLimiter {
  const { primary, local } = opts;
  const policy = primary.policy;
  const clock = opts.clock ?? systemClock;
  const timeoutMs = opts.timeoutMs ?? 250;
  const retryIntervalMs = opts.retryIntervalMs ?? 1000;
  const log = opts.logger.child({ rateLimit: policy.name });

  let degradedSinceMs: number | null = null;
  let servedLocally = 0;
  let retryAtMs = 0;
  let probing = false;

  function onFailure(reason: string): void {
    retryAtMs = clock.nowMs() + retryIntervalMs;
    if (degradedSinceMs !== null) return;
    degradedSinceMs = clock.nowMs();
    log.warn({ reason }, 'rate limits degraded to the local in-process limiter: redis unavailable');
  }

  function onSuccess(): void {
    if (degradedSinceMs === null) return;
    log.info(
      { outageMs: clock.nowMs() - degradedSinceMs, servedLocally },
      'rate limits restored to redis after an outage',
    );
    degradedSinceMs = null;
    servedLocally = 0;
  }

  async function consumeLocally(bucketId: string, cost: number): Promise<RateLimitResult> {
    servedLocally += 1;
    opts.countFallback(policy.name);
    return local.consume(bucketId, cost);
  }

  // A primary with a fast path (leased units, certain refusals) answers without Redis even while
  // degraded: those units were granted by Redis, and such answers say nothing about its health,
  // so they neither end nor start a degradation.
  const fastPath = primary.tryConsume?.bind(primary);
  // While Redis is being skipped, a local limiter that answers synchronously (the in-process one
  // always does) keeps the caller synchronous through the outage too.
  const localNow = local.tryConsume?.bind(local);
  const skippingRedis = () => degradedSinceMs !== null && (probing || clock.nowMs() < retryAtMs);

  function tryConsume(bucketId: string, cost = 1): RateLimitResult | undefined {
    if (fastPath) {
      const fast = fastPath(bucketId, cost);
      if (fast !== undefined) return fast;
    }
    if (!localNow || !skippingRedis()) return undefined;
    const result = localNow(bucketId, cost);
    if (result !== undefined) {
      servedLocally += 1;
      opts.countFallback(policy.name);
    }
    return result;
  }

  const limiter: FallbackRateLimiter = {
    policy,
    isDegraded: () => degradedSinceMs !== null,
    async consume(bucketId: string, cost = 1): Promise<RateLimitResult> {
      // Validated here so a programming error surfaces as such instead of looking like an outage.
      assertCost(cost);
      const known = tryConsume(bucketId, cost);
      if (known !== undefined) return known;
      const degraded = degradedSinceMs !== null;
      if (skippingRedis()) return consumeLocally(bucketId, cost);

      if (degraded) probing = true;
      try {
        const call = primary.consume(bucketId, cost);
        // An abandoned call may still settle later; its rejection must not go unhandled.
        call.catch(() => {});
        const result = timeoutMs > 0 ? await withTimeout(call, timeoutMs) : await call;
        if (result === TIMED_OUT) {
          onFailure(`no answer within ${timeoutMs} ms`);
          return consumeLocally(bucketId, cost);
        }
        onSuccess();
        return result;
      } catch (err) {
        onFailure(errorMessage(err));
        return consumeLocally(bucketId, cost);
      } finally {
        if (degraded) probing = false;
      }
    },
  };
  if (fastPath || localNow) limiter.tryConsume = tryConsume;
  return limiter;
}
