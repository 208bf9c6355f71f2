import { expect } from 'chai';
import { retryAfterMsOf } from './retry-after.ts';

describe('webhook Retry-After', () => {
  const now = Date.UTC(2026, 10, 24, 12, 0, 0);

  it('reads delta-seconds on 429 and 503 only', () => {
    expect(retryAfterMsOf(429, '120', now)).to.equal(120_000);
    expect(retryAfterMsOf(503, ' 0 ', now)).to.equal(0);
    for (const status of [200, 204, 301, 400, 500, 502, 504])
      expect(retryAfterMsOf(status, '120', now)).to.equal(null);
    expect(retryAfterMsOf(429, undefined, now)).to.equal(null);
  });

  it('reads the three HTTP-date forms, relative to now', () => {
    expect(retryAfterMsOf(429, 'Tue, 24 Nov 2026 12:01:30 GMT', now)).to.equal(90_000);
    expect(retryAfterMsOf(503, 'Tuesday, 24-Nov-26 12:00:05 GMT', now)).to.equal(5_000);
    expect(retryAfterMsOf(503, 'Tue Nov 24 12:00:07 2026', now)).to.equal(7_000);
    expect(retryAfterMsOf(503, 'Tue Dec  1 12:00:00 2026', now)).to.equal(7 * 24 * 3600_000);
  });

  it('clamps what lies in the past to 0', () => {
    expect(retryAfterMsOf(429, '-5', now)).to.equal(0);
    expect(retryAfterMsOf(429, 'Tue, 24 Nov 2026 11:59:00 GMT', now)).to.equal(0);
    expect(retryAfterMsOf(429, 'Sunday, 06-Nov-94 08:49:37 GMT', now)).to.equal(0);
  });

  it('ignores what it cannot read', () => {
    for (const garbage of [
      '',
      'soon',
      '1.5',
      '5 seconds',
      '0x10',
      'Tue, 31 Feb 2026 12:00:00 GMT',
      'Tue, 24 Foo 2026 12:00:00 GMT',
      'Tue, 24 Nov 2026 25:00:00 GMT',
      '2026-11-24T12:01:00Z',
      'Tue, 24 Nov 2026 12:01:30 +0100',
    ]) {
      expect(retryAfterMsOf(429, garbage, now), garbage).to.equal(null);
    }
  });

  it('keeps an absurdly long delay a finite number', () => {
    expect(retryAfterMsOf(429, '9'.repeat(400), now)).to.equal(Number.MAX_SAFE_INTEGER);
  });
});
