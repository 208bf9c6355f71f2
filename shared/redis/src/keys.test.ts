import { expect } from 'chai';
import { assertKeyPrefix, DEFAULT_KEY_PREFIX, encodeKeyPart, rateLimitKey } from './keys.ts';

describe('keys', () => {
  it('builds rate-limit keys with the prefix, a per-bucket hash tag and the window start', () => {
    expect(rateLimitKey(DEFAULT_KEY_PREFIX, 'per-ip', '203.0.113.7', 1_700_000_040_000)).to.equal(
      'lattice:rl:{per-ip:203.0.113.7}:1700000040000',
    );
    expect(rateLimitKey('t1:', 'publish', 'prd_1', 0)).to.equal('t1:rl:{publish:prd_1}:0');
  });

  it('keeps every window of one bucket in the same hash tag', () => {
    const tag = (key: string) => key.slice(key.indexOf('{'), key.indexOf('}') + 1);
    const a = rateLimitKey('p:', 'per-ip', '::1', 10_000);
    const b = rateLimitKey('p:', 'per-ip', '::1', 20_000);
    expect(a).to.not.equal(b);
    expect(tag(a)).to.equal(tag(b)).and.equal('{per-ip:::1}');
  });

  it('encodes braces, percent signs and whitespace in ids so they cannot move the hash tag', () => {
    expect(encodeKeyPart('a{b}c')).to.equal('a%7Bb%7Dc');
    expect(encodeKeyPart('50% off')).to.equal('50%25%20off');
    expect(encodeKeyPart('x\ny\u0000')).to.equal('x%0Ay%00');
    expect(encodeKeyPart('2001:db8::1')).to.equal('2001:db8::1');
    expect(rateLimitKey('p:', 'b', '{x}', 0)).to.equal('p:rl:{b:%7Bx%7D}:0');
    // Distinct ids stay distinct after encoding.
    expect(encodeKeyPart('%7B')).to.not.equal(encodeKeyPart('{'));
  });

  it('rejects prefixes, bucket names and windows that would corrupt the key space', () => {
    expect(() => assertKeyPrefix('a{b}:')).to.throw(TypeError);
    expect(() => rateLimitKey('a b:', 'b', 'i', 0)).to.throw(TypeError);
    expect(() => rateLimitKey('p:', 'per:ip', 'i', 0)).to.throw(TypeError);
    expect(() => rateLimitKey('p:', '', 'i', 0)).to.throw(TypeError);
    expect(() => rateLimitKey('p:', 'b', 'i', -1)).to.throw(RangeError);
    expect(() => rateLimitKey('p:', 'b', 'i', 1.5)).to.throw(RangeError);
  });
});
