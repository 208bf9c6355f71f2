import { expect } from 'chai';
import { backoffDelayMs, backoffWindowMs, resolveBackoff } from './backoff.ts';

describe('backoff (full jitter)', () => {
  const backoff = resolveBackoff();

  it('defaults to 500 ms doubling up to 20 s', () => {
    expect(backoff).to.deep.equal({ initialMs: 500, maxMs: 20_000 });
    expect([0, 1, 2, 3, 4, 5, 6, 50, 5000].map((n) => backoffWindowMs(backoff, n))).to.deep.equal([
      500, 1000, 2000, 4000, 8000, 16_000, 20_000, 20_000, 20_000,
    ]);
  });

  it('draws the delay over the whole window: random 0 is no wait, random near 1 the window', () => {
    expect(backoffDelayMs(backoff, 3, () => 0)).to.equal(0);
    expect(backoffDelayMs(backoff, 3, () => 0.5)).to.equal(2000);
    expect(backoffDelayMs(backoff, 3, () => 0.999_999)).to.equal(3999);
    expect(backoffDelayMs(backoff, 40, () => 0.999_999)).to.be.below(20_000);
  });

  it('stays within [0, window) for any random source', () => {
    for (const r of [-1, 1, 2, Number.NaN, Number.POSITIVE_INFINITY]) {
      const d = backoffDelayMs(backoff, 2, () => r);
      expect(d, String(r)).to.be.within(0, 2000);
    }
    for (let attempt = 0; attempt < 12; attempt++) {
      for (let i = 0; i < 50; i++) {
        const d = backoffDelayMs(backoff, attempt, Math.random);
        expect(d).to.be.at.least(0).and.below(backoffWindowMs(backoff, attempt));
      }
    }
  });

  it('takes custom bounds and ignores invalid ones', () => {
    expect(resolveBackoff({ initialMs: 100, maxMs: 1000 })).to.deep.equal({ initialMs: 100, maxMs: 1000 });
    expect(resolveBackoff({ initialMs: -1, maxMs: Number.NaN })).to.deep.equal({
      initialMs: 500,
      maxMs: 20_000,
    });
    expect(backoffWindowMs(resolveBackoff({ initialMs: 100, maxMs: 1000 }), 4)).to.equal(1000);
  });
});
