import { ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import { createMemoryRateLimiter } from './rate-limiter.memory.ts';
import { describeRateLimiter } from './testing/rate-limiter-conformance.ts';

describeRateLimiter('memory', ({ policy, clock }) => createMemoryRateLimiter({ policy, clock }));

describe('createMemoryRateLimiter memory bound', () => {
  const policy = { name: 'bounded', limit: 2, windowMs: 1_000 };

  it('never holds more than maxBuckets, dropping the older generation first', async () => {
    const clock = new ManualClock(5_000);
    // Generations of 2: `a` and `b` fill the young one.
    const limiter = createMemoryRateLimiter({ policy, clock, maxBuckets: 4 });
    for (const id of ['a', 'b']) await limiter.consume(id, 2);
    // `c` starts a new generation; `a` and `b` become the old one.
    await limiter.consume('c', 2);
    // Used again, `a` moves to the young generation with its count.
    expect(await limiter.consume('a')).to.deep.include({ allowed: false, count: 2 });
    expect(limiter.bucketCount()).to.equal(3);
    // `d` finds the young generation full (`c`, `a`): the old one (`b`) is dropped.
    await limiter.consume('d');
    expect(limiter.bucketCount()).to.be.at.most(4);
    expect(await limiter.consume('a')).to.deep.include({ allowed: false, count: 2 });
    expect(await limiter.consume('c')).to.deep.include({ allowed: false, count: 2 });
    expect(await limiter.consume('b', 0)).to.deep.include({ count: 0 });
    // Sprayed ids never grow it past the bound.
    for (let i = 0; i < 1_000; i++) await limiter.consume(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.bucketCount()).to.be.at.most(4);
  });

  it('drops every bucket when the window rolls', async () => {
    const clock = new ManualClock(5_000);
    const limiter = createMemoryRateLimiter({ policy, clock, maxBuckets: 4 });
    for (const id of ['a', 'b', 'c']) await limiter.consume(id);
    clock.advance(1_000);
    await limiter.consume('d');
    expect(limiter.bucketCount()).to.equal(1);
    expect(await limiter.consume('a')).to.deep.include({ allowed: true, count: 1 });
  });

  it('answers every call synchronously through tryConsume', () => {
    const limiter = createMemoryRateLimiter({ policy, clock: new ManualClock(5_000) });
    expect(limiter.tryConsume('a')).to.deep.include({ allowed: true, count: 1 });
    expect(limiter.tryConsume('a')).to.deep.include({ allowed: true, count: 2 });
    expect(limiter.tryConsume('a')).to.deep.include({ allowed: false, count: 2, retryAfterSeconds: 1 });
    expect(() => limiter.tryConsume('a', 1.5)).to.throw(RangeError);
  });

  it('does not allocate a bucket for a read', async () => {
    const limiter = createMemoryRateLimiter({ policy, clock: new ManualClock(0) });
    await limiter.consume('a', 0);
    expect(limiter.bucketCount()).to.equal(0);
  });

  it('rejects an invalid policy up front', () => {
    expect(() => createMemoryRateLimiter({ policy: { ...policy, windowMs: 0 } })).to.throw(RangeError);
    expect(() => createMemoryRateLimiter({ policy: { ...policy, limit: -1 } })).to.throw(RangeError);
    expect(() => createMemoryRateLimiter({ policy, maxBuckets: 1 })).to.throw(RangeError);
  });
});
