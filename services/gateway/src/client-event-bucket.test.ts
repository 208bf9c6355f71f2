import { expect } from 'chai';
import { createClientEventBucket } from './client-event-bucket.ts';

describe('client event bucket', () => {
  it('allows a burst of 10 at once and refuses the 11th', () => {
    const bucket = createClientEventBucket(0);
    const taken = Array.from({ length: 11 }, () => bucket.take(0));
    expect(taken.filter(Boolean)).to.have.length(10);
    expect(taken[10]).to.equal(false);
  });

  it('refills continuously at 5 per second, never above the burst', () => {
    const bucket = createClientEventBucket(0);
    for (let i = 0; i < 10; i++) bucket.take(0);
    expect(bucket.take(199)).to.equal(false);
    expect(bucket.take(200)).to.equal(true);
    expect(bucket.take(200)).to.equal(false);
    // A long quiet spell fills it to 10 again, not more.
    const later = Array.from({ length: 11 }, () => bucket.take(60_000));
    expect(later.filter(Boolean)).to.have.length(10);
  });

  it('gives a refunded token back', () => {
    const bucket = createClientEventBucket(0);
    for (let i = 0; i < 10; i++) bucket.take(0);
    bucket.refund();
    expect(bucket.take(0)).to.equal(true);
    expect(bucket.take(0)).to.equal(false);
  });
});
