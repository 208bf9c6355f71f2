import { expect } from 'chai';
import { backoffDelayMs, jitter, scheduledDelayMs } from './backoff.ts';

describe('backoff', () => {
  it('grows exponentially and caps at maxMs', () => {
    const opts = { initialMs: 100, maxMs: 1000 };
    expect([1, 2, 3, 4, 5].map((a) => backoffDelayMs(a, opts))).to.deep.equal([100, 200, 400, 800, 1000]);
  });

  it('keeps jitter within the ratio on both sides', () => {
    expect(jitter(1000, 0.1, () => 0)).to.equal(900);
    expect(jitter(1000, 0.1, () => 1)).to.equal(1100);
    expect(jitter(1000, 0, () => 1)).to.equal(1000);
  });

  it('reads a fixed schedule and ends after its last entry', () => {
    const schedule = [5000, 300000];
    expect(scheduledDelayMs(schedule, 1)).to.equal(5000);
    expect(scheduledDelayMs(schedule, 2)).to.equal(300000);
    expect(scheduledDelayMs(schedule, 3)).to.equal(null);
  });
});
