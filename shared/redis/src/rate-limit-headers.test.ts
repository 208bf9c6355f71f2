import { expect } from 'chai';
import { resultOf } from './fixed-window.ts';
import {
  type RateLimitOutcome,
  rateLimitHeader,
  rateLimitHeaders,
  rateLimitPolicyHeader,
  retryAfterHeader,
  singlePolicyHeaders,
} from './rate-limit-headers.ts';

const perIp = { name: 'per-ip', limit: 100, windowMs: 60_000 };
const publish = { name: 'publish', limit: 1100, windowMs: 10_000 };

function outcome(policy: typeof perIp, count: number, allowed: boolean, resetMs: number): RateLimitOutcome {
  return { policy, result: resultOf(policy.limit, count, allowed, resetMs) };
}

describe('rate-limit headers', () => {
  it('renders the draft structured fields for one policy', () => {
    const o = [outcome(perIp, 58, true, 16_200)];
    expect(rateLimitPolicyHeader(o)).to.equal('"per-ip";q=100;w=60');
    expect(rateLimitHeader(o)).to.equal('"per-ip";r=42;t=17');
    expect(rateLimitHeaders(o)).to.deep.equal({
      'RateLimit-Policy': '"per-ip";q=100;w=60',
      RateLimit: '"per-ip";r=42;t=17',
    });
  });

  it('builds the constant parts of one policy once, with the same values', () => {
    const headers = singlePolicyHeaders(perIp);
    for (const [count, allowed, resetMs] of [
      [58, true, 16_200],
      [100, false, 1],
      [0, true, 60_000],
    ] as const) {
      const o = [outcome(perIp, count, allowed, resetMs)];
      expect(headers.policy).to.equal(rateLimitPolicyHeader(o));
      expect(headers.rateLimit(o[0]!.result)).to.equal(rateLimitHeader(o));
    }
  });

  it('adds Retry-After only when refused, as whole seconds until the window rolls', () => {
    const refused = [outcome(publish, 1100, false, 2_001)];
    expect(rateLimitHeaders(refused)).to.deep.equal({
      'RateLimit-Policy': '"publish";q=1100;w=10',
      RateLimit: '"publish";r=0;t=3',
      'Retry-After': '3',
    });
    expect(retryAfterHeader([outcome(publish, 1100, false, 1)])).to.equal('1');
    expect(retryAfterHeader([outcome(publish, 10, true, 1)])).to.equal(undefined);
  });

  it('lists several policies in one field and waits for the slowest refusing one', () => {
    const o = [outcome(perIp, 100, false, 30_000), outcome(publish, 1100, false, 4_000)];
    expect(rateLimitHeaders(o)).to.deep.equal({
      'RateLimit-Policy': '"per-ip";q=100;w=60, "publish";q=1100;w=10',
      RateLimit: '"per-ip";r=0;t=30, "publish";r=0;t=4',
      'Retry-After': '30',
    });
    // An allowed policy with a long window does not delay the retry.
    expect(
      retryAfterHeader([outcome(perIp, 1, true, 59_000), outcome(publish, 1100, false, 4_000)]),
    ).to.equal('4');
  });

  it('escapes policy names as structured-field strings and refuses what cannot be sent', () => {
    const odd = { ...perIp, name: 'a"b\\c' };
    expect(rateLimitPolicyHeader([outcome(odd, 0, true, 1_000)])).to.equal('"a\\"b\\\\c";q=100;w=60');
    expect(() => rateLimitPolicyHeader([outcome({ ...perIp, name: 'é' }, 0, true, 1_000)])).to.throw(
      TypeError,
    );
  });

  it('rounds a sub-second or fractional window up to whole seconds', () => {
    expect(rateLimitPolicyHeader([outcome({ ...perIp, windowMs: 500 }, 0, true, 500)])).to.equal(
      '"per-ip";q=100;w=1',
    );
    expect(rateLimitPolicyHeader([outcome({ ...perIp, windowMs: 1_500 }, 0, true, 500)])).to.equal(
      '"per-ip";q=100;w=2',
    );
  });

  it('returns no headers for no outcomes', () => {
    expect(rateLimitHeaders([])).to.deep.equal({});
  });
});
