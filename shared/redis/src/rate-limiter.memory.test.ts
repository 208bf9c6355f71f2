import { ManualClock } from '@lattice/core';
import { expect } from 'chai';
import { describeRateLimiter } from './rate-limiter.conformance.ts';
import { createMemoryRateLimiter } from './rate-limiter.memory.ts';

describeRateLimiter('memory', ({ policy, clock }) => createMemoryRateLimiter({ policy, clock }));

describe('createMemoryRateLimiter memory bound', () => {
  const policy = { name: 'bounded', limit: 2, windowMs: 1_000 };

  it('never holds more than maxBuckets, forgetting the least recently used', async () => {
    const clock = new ManualClock(5_000);
    const limiter = createMemoryRateLimiter({ policy, clock, maxBuckets: 3 });
    for (const id of ['a', 'b', 'c']) await limiter.consume(id, 2);
    await limiter.consume('a', 0); // touch: `b` is now the least recently used
    await limiter.consume('d');
    expect(limiter.bucketCount()).to.equal(3);
    expect(await limiter.consume('a')).to.deep.include({ allowed: false, count: 2 });
    expect(await limiter.consume('c')).to.deep.include({ allowed: false, count: 2 });
    expect(await limiter.consume('b', 0)).to.deep.include({ count: 0 });
  });

  it('drops buckets of past windows before live ones', async () => {
    const clock = new ManualClock(5_000);
    const limiter = createMemoryRateLimiter({ policy, clock, maxBuckets: 3 });
    for (const id of ['a', 'b', 'c']) await limiter.consume(id);
    clock.advance(1_000);
    await limiter.consume('d');
    expect(limiter.bucketCount()).to.equal(1);
  });

  it('does not allocate a bucket for a read', async () => {
    const limiter = createMemoryRateLimiter({ policy, clock: new ManualClock(0) });
    await limiter.consume('a', 0);
    expect(limiter.bucketCount()).to.equal(0);
  });

  it('rejects an invalid policy up front', () => {
    expect(() => createMemoryRateLimiter({ policy: { ...policy, windowMs: 0 } })).to.throw(RangeError);
    expect(() => createMemoryRateLimiter({ policy: { ...policy, limit: -1 } })).to.throw(RangeError);
  });
});
