// The behaviour every RateLimiter implementation must share, written once and run against each
// (memory in unit tests, Redis in integration tests). Time is a ManualClock so window edges are
// hit to the millisecond.
import type { Clock } from '@lattice/core';
import { ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import type { FixedWindowPolicy, RateLimiter } from '../rate-limiter.ts';

export type RateLimiterFactory = (deps: {
  policy: FixedWindowPolicy;
  clock: Clock;
}) => RateLimiter | Promise<RateLimiter>;

// A window boundary (a multiple of every windowMs used here) in a realistic epoch range.
const T0 = 1_700_000_000_000;
const POLICY: FixedWindowPolicy = { name: 'conformance', limit: 5, windowMs: 10_000 };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

export function describeRateLimiter(name: string, factory: RateLimiterFactory): void {
  describe(`RateLimiter conformance: ${name}`, () => {
    let clock: ManualClock;
    let limiter: RateLimiter;

    beforeEach(async () => {
      clock = new ManualClock(T0 + 2_500);
      limiter = await factory({ policy: POLICY, clock });
    });

    it('allows exactly `limit` units and refuses the next one', async () => {
      for (let i = 1; i <= POLICY.limit; i++) {
        const r = await limiter.consume('a');
        expect(r, `call ${i}`).to.deep.include({ allowed: true, count: i, limit: 5, remaining: 5 - i });
      }
      const refused = await limiter.consume('a');
      expect(refused).to.deep.equal({
        allowed: false,
        count: 5,
        limit: 5,
        remaining: 0,
        resetMs: 7_500,
        retryAfterSeconds: 8,
      });
    });

    it('gives the same answers through tryConsume, where it answers, as through consume', async () => {
      for (let i = 1; i <= POLICY.limit + 2; i++) {
        // Alternating: each path must see what the other took.
        const r = (i % 2 === 0 ? limiter.tryConsume?.('t') : undefined) ?? (await limiter.consume('t'));
        expect(r, `call ${i}`).to.deep.include({
          allowed: i <= POLICY.limit,
          count: Math.min(i, POLICY.limit),
          remaining: Math.max(0, POLICY.limit - i),
        });
      }
    });

    it('does not count refused calls', async () => {
      for (let i = 0; i < 4; i++) await limiter.consume('a');
      expect(await limiter.consume('a', 2)).to.deep.include({ allowed: false, count: 4, remaining: 1 });
      expect(await limiter.consume('a', 1)).to.deep.include({ allowed: true, count: 5, remaining: 0 });
      for (let i = 0; i < 10; i++) expect((await limiter.consume('a')).count).to.equal(5);
    });

    it('refuses a cost above the limit without taking any of the quota', async () => {
      expect(await limiter.consume('a', 6)).to.deep.include({ allowed: false, count: 0, remaining: 5 });
      expect(await limiter.consume('a', 5)).to.deep.include({ allowed: true, count: 5, remaining: 0 });
    });

    it('rolls the window at the aligned boundary, not a window after the first call', async () => {
      for (let i = 0; i < 6; i++) await limiter.consume('a');
      clock.set(T0 + 9_999);
      expect(await limiter.consume('a')).to.deep.include({
        allowed: false,
        resetMs: 1,
        retryAfterSeconds: 1,
      });
      clock.set(T0 + 10_000);
      expect(await limiter.consume('a')).to.deep.equal({
        allowed: true,
        count: 1,
        limit: 5,
        remaining: 4,
        resetMs: 10_000,
        retryAfterSeconds: 10,
      });
    });

    it('reports retryAfterSeconds as whole seconds until the roll, at least 1', async () => {
      const cases: Array<[offsetMs: number, resetMs: number, seconds: number]> = [
        [0, 10_000, 10],
        [1, 9_999, 10],
        [8_500, 1_500, 2],
        [9_000, 1_000, 1],
        [9_999, 1, 1],
      ];
      for (const [offsetMs, resetMs, seconds] of cases) {
        clock.set(T0 + offsetMs);
        const r = await limiter.consume(`b${offsetMs}`, 6);
        expect(r, `at +${offsetMs} ms`).to.deep.include({
          allowed: false,
          resetMs,
          retryAfterSeconds: seconds,
        });
      }
    });

    it('keeps buckets apart, including ids with separators and braces', async () => {
      const ids = ['a', 'b', '::1', '2001:db8::1', '{a}', 'a}', 'a b'];
      for (const id of ids) await limiter.consume(id, 5);
      for (const id of ids) expect(await limiter.consume(id, 0), id).to.deep.include({ count: 5 });
      expect(await limiter.consume('c')).to.deep.include({ allowed: true, count: 1 });
    });

    it('reads without consuming when cost is 0', async () => {
      expect(await limiter.consume('a', 0)).to.deep.include({ allowed: true, count: 0, remaining: 5 });
      await limiter.consume('a', 3);
      expect(await limiter.consume('a', 0)).to.deep.include({ allowed: true, count: 3, remaining: 2 });
      expect(await limiter.consume('a')).to.deep.include({ count: 4 });
    });

    it('rejects a cost that is not a non-negative integer', async () => {
      for (const cost of [-1, 1.5, Number.NaN]) {
        expect(await rejection(limiter.consume('a', cost)), String(cost)).to.be.instanceOf(RangeError);
      }
      expect(await limiter.consume('a', 0)).to.deep.include({ count: 0 });
    });

    it('refuses everything under a zero limit', async () => {
      const closed = await factory({ policy: { ...POLICY, name: 'closed', limit: 0 }, clock });
      expect(await closed.consume('a')).to.deep.include({ allowed: false, count: 0, remaining: 0 });
    });
  });
}
