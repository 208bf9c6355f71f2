import { expect } from 'chai';
import { idempotencyKeyProblem } from './idempotency.ts';
import { DEFAULT_PUBLISH_QUOTA, publishQuotaOf, softLimitPerWindow } from './publish-quota.ts';

describe('publish headers', () => {
  it('bounds Idempotency-Key values', () => {
    expect(idempotencyKeyProblem('a')).to.equal(null);
    expect(idempotencyKeyProblem('k'.repeat(255))).to.equal(null);
    expect(idempotencyKeyProblem('k'.repeat(256))).to.be.a('string');
    expect(idempotencyKeyProblem('')).to.be.a('string');
    expect(idempotencyKeyProblem('tab\tinside')).to.be.a('string');
  });
});

describe('publish quota configuration', () => {
  it('defaults to the spec (50/s, 10 s, burst 100, hard 1100) and takes a deployment’s numbers', () => {
    expect(publishQuotaOf({})).to.deep.equal(DEFAULT_PUBLISH_QUOTA);
    expect(softLimitPerWindow(DEFAULT_PUBLISH_QUOTA)).to.equal(600);
    expect(publishQuotaOf({ hardLimitPerWindow: 10, burstPerWindow: 2 })).to.deep.equal({
      sustainedPerSecond: 50,
      windowMs: 10_000,
      burstPerWindow: 2,
      hardLimitPerWindow: 10,
    });
    expect(() => publishQuotaOf({ windowMs: 0 })).to.throw(/windowMs/);
    expect(() => publishQuotaOf({ hardLimitPerWindow: 1.5 })).to.throw(/hardLimitPerWindow/);
  });
});
