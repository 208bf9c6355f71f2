import { captureLogs, LEVEL, ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import { resultOf } from './fixed-window.ts';
import { createFallbackRateLimiter } from './rate-limiter.fallback.ts';
import { createMemoryRateLimiter } from './rate-limiter.memory.ts';
import type { FixedWindowPolicy, RateLimiter, RateLimitResult } from './rate-limiter.ts';

// The clock starts 20 s into a 60 s window, so local answers reset in 40 s.
const policy: FixedWindowPolicy = { name: 'per-ip', limit: 3, windowMs: 60_000 };

/** A primary whose behaviour the test switches: answer, fail, or never answer. */
function scriptedPrimary() {
  const state = { mode: 'ok' as 'ok' | 'fail' | 'hang', calls: 0 };
  const primary: RateLimiter = {
    policy,
    consume(): Promise<RateLimitResult> {
      state.calls += 1;
      if (state.mode === 'fail') return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'));
      if (state.mode === 'hang') return new Promise(() => {});
      // Distinguishable from local answers: the primary always reports count 1.
      return Promise.resolve(resultOf(policy.limit, 1, true, 1_000));
    },
  };
  return { primary, state };
}

function setup(timeoutMs = 50) {
  const clock = new ManualClock(1_700_000_000_000);
  const { primary, state } = scriptedPrimary();
  const logs = captureLogs();
  const fallbacks: string[] = [];
  const limiter = createFallbackRateLimiter({
    primary,
    local: createMemoryRateLimiter({ policy, clock }),
    logger: logs.logger,
    countFallback: (name) => fallbacks.push(name),
    timeoutMs,
    retryIntervalMs: 1_000,
    clock,
  });
  return { clock, state, logs, fallbacks, limiter };
}

describe('createFallbackRateLimiter', () => {
  it('answers from the primary while it is healthy, silently', async () => {
    const { limiter, fallbacks, logs } = setup();
    for (let i = 0; i < 5; i++)
      expect(await limiter.consume('ip')).to.deep.include({ allowed: true, count: 1 });
    expect(fallbacks).to.deep.equal([]);
    expect(logs.lines).to.deep.equal([]);
    expect(limiter.isDegraded()).to.equal(false);
  });

  it('limits locally when the primary fails: counted every time, logged once', async () => {
    const { limiter, state, fallbacks, logs } = setup();
    state.mode = 'fail';
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => limiter.consume('ip')));
    expect(results.map((r) => r.allowed)).to.deep.equal([true, true, true, false, false]);
    expect(await limiter.consume('ip')).to.deep.include({ allowed: false, count: 3, retryAfterSeconds: 40 });
    expect(fallbacks).to.deep.equal(Array(6).fill('per-ip'));
    expect(logs.at(LEVEL.warn)).to.have.length(1);
    expect(logs.at(LEVEL.warn)[0]).to.deep.include({
      rateLimit: 'per-ip',
      reason: 'connect ECONNREFUSED 127.0.0.1:1',
    });
    expect(limiter.isDegraded()).to.equal(true);
  });

  it('gives up on a primary that does not answer in time', async () => {
    const { limiter, state, fallbacks, logs } = setup(20);
    state.mode = 'hang';
    const started = Date.now();
    expect(await limiter.consume('ip')).to.deep.include({ allowed: true, count: 1 });
    // Far from the 20 ms limit, and below the test timeout a primary waited for would hit.
    expect(Date.now() - started).to.be.lessThan(3_000);
    expect(fallbacks).to.have.length(1);
    expect(logs.at(LEVEL.warn)[0]).to.deep.include({ reason: 'no answer within 20 ms' });
  });

  it('skips the primary for retryIntervalMs, then probes and recovers with one log line', async () => {
    const { limiter, state, clock, logs } = setup();
    state.mode = 'fail';
    await limiter.consume('ip');
    state.mode = 'ok';
    clock.advance(999);
    expect(await limiter.consume('ip')).to.deep.include({ count: 2 });
    expect(state.calls).to.equal(1);
    clock.advance(1);
    expect(await limiter.consume('ip')).to.deep.include({ count: 1 });
    expect(state.calls).to.equal(2);
    expect(limiter.isDegraded()).to.equal(false);
    const restored = logs.at(LEVEL.info);
    expect(restored).to.have.length(1);
    expect(restored[0]).to.deep.include({ servedLocally: 2, outageMs: 1_000 });
    // A second outage is logged again.
    state.mode = 'fail';
    await limiter.consume('ip');
    expect(logs.at(LEVEL.warn)).to.have.length(2);
  });

  it('lets only one probe through at a time while degraded', async () => {
    const { limiter, state, clock } = setup();
    state.mode = 'fail';
    await limiter.consume('ip');
    clock.advance(1_000);
    state.mode = 'hang';
    await Promise.all([limiter.consume('ip'), limiter.consume('ip'), limiter.consume('ip')]);
    expect(state.calls).to.equal(2);
  });

  it('answers synchronously from the local limiter while the primary is skipped, not otherwise', async () => {
    const { limiter, state, clock, fallbacks } = setup();
    // Healthy, and the primary has no fast path: only consume() can tell.
    expect(limiter.tryConsume?.('ip')).to.equal(undefined);
    state.mode = 'fail';
    await limiter.consume('ip');
    // Degraded: the local count goes on without a promise, counted as a fallback like any other.
    expect(limiter.tryConsume?.('ip')).to.deep.include({ allowed: true, count: 2 });
    expect(limiter.tryConsume?.('ip')).to.deep.include({ allowed: true, count: 3 });
    expect(limiter.tryConsume?.('ip')).to.deep.include({ allowed: false, count: 3, retryAfterSeconds: 40 });
    expect(fallbacks).to.have.length(4);
    expect(state.calls).to.equal(1);
    // Time to probe: the answer needs the primary again.
    clock.advance(1_000);
    expect(limiter.tryConsume?.('ip')).to.equal(undefined);
    expect(fallbacks).to.have.length(4);
  });

  it('throws on an invalid cost instead of blaming the primary', async () => {
    const { limiter, state, fallbacks } = setup();
    let error: unknown;
    await limiter.consume('ip', -1).catch((err: unknown) => {
      error = err;
    });
    expect(error).to.be.instanceOf(RangeError);
    expect(state.calls).to.equal(0);
    expect(fallbacks).to.deep.equal([]);
  });
});
