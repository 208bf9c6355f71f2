import { sha256Hex } from '@lattice/core';
import { expect } from 'chai';
import {
  assertKeyPrefix,
  DEFAULT_KEY_PREFIX,
  encodeKeyPart,
  fanOutChannel,
  fanOutChannelPattern,
  keyChangesChannel,
  presenceResultChannel,
  presenceResultPattern,
  rateLimitKey,
  realtimeIdempotencyKeys,
} from './keys.ts';

const PRODUCT = '6f1c1f8e-0000-4000-8000-000000000001';

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

  it('names the key change channel of each edge environment', () => {
    expect(keyChangesChannel('lattice:', 'production')).to.equal('lattice:public-keys:changed:production');
    expect(() => keyChangesChannel('a{b}:', 'development')).to.throw(TypeError);
  });

  it('names the realtime fan-out and presence result pub/sub channels under the key prefix', () => {
    const id = { productId: PRODUCT, environment: 'production', channel: 'chat:room:1' };
    expect(fanOutChannel('lattice:', id)).to.equal(`lattice:rt:${PRODUCT}:production:chat:room:1`);
    expect(presenceResultChannel('lattice:', 'gw1.c42')).to.equal('lattice:rt-result:gw1.c42');
  });

  it('builds PSUBSCRIBE patterns that match exactly the channels they name', () => {
    expect(fanOutChannelPattern('p:', PRODUCT, 'production', 'bench:r1-')).to.equal(
      `p:rt:${PRODUCT}:production:bench:r1-*`,
    );
    expect(presenceResultPattern('p:')).to.equal('p:rt-result:*');
    expect(presenceResultPattern('p:', 'gw1.')).to.equal('p:rt-result:gw1.*');
    const channel = fanOutChannel('p:', {
      productId: PRODUCT,
      environment: 'production',
      channel: 'bench:r1-7',
    });
    expect(
      channel.startsWith(fanOutChannelPattern('p:', PRODUCT, 'production', 'bench:r1-').slice(0, -1)),
    ).to.equal(true);
  });

  it('keeps the four idempotency keys of one publish key in one hash tag, the client text hashed', () => {
    const keys = realtimeIdempotencyKeys('lattice:', PRODUCT, 'development', 'order {42}');
    const record = `lattice:rt-idem:{${PRODUCT}:development:${sha256Hex('order {42}')}}`;
    expect(keys).to.deep.equal({
      record,
      lock: `${record}:lock`,
      done: `${record}:done`,
      applied: `${record}:applied`,
    });
    expect(keys.record).to.not.include('order');
    expect(() => realtimeIdempotencyKeys('a b:', PRODUCT, 'development', 'k')).to.throw(TypeError);
  });
});
