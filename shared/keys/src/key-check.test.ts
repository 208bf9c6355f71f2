import { sha256Hex } from '@lattice/core';
import { ManualClock } from '@lattice/core/testing';
import { PUBLIC_ROUTES } from '@lattice/http';
import { expect } from 'chai';
import { checkPublicKey, createKeySnapshot, type KeyCheckInput, type SnapshotKey } from './key-check.ts';

const PRODUCT = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const KEY = 'lpk_0123456789abcdef0123456789abcdef';
const messages = PUBLIC_ROUTES.find((r) => r.path === '/messages')!;
const emails = PUBLIC_ROUTES.find((r) => r.path === '/emails' && r.method === 'POST')!;

function snapshotWith(overrides: Partial<SnapshotKey> = {}) {
  return createKeySnapshot(
    [
      {
        id: 'k1',
        productId: PRODUCT,
        hash: sha256Hex(KEY),
        scope: { kind: 'toolkit', toolkit: 'realtime' },
        revokedAtMs: null,
        ...overrides,
      },
    ],
    0,
  );
}

function check(overrides: Partial<KeyCheckInput>) {
  return checkPublicKey({
    snapshot: snapshotWith(),
    presented: KEY,
    productId: PRODUCT,
    route: messages,
    clock: new ManualClock(1_000_000),
    revokedGraceMs: 30_000,
    ...overrides,
  });
}

function errorOf(r: ReturnType<typeof check>) {
  if (r.ok) throw new Error('expected a refusal');
  return [r.error.status, r.error.code, r.error.step];
}

describe('public key check', () => {
  it('passes an active key whose scope covers the route', () => {
    const r = check({});
    expect(r.ok).to.equal(true);
  });

  it('fails closed with 503 before any snapshot, without a step', () => {
    expect(errorOf(check({ snapshot: null }))).to.deep.equal([503, 'public_config_unavailable', undefined]);
  });

  it('answers 401 public_key_required when no key is presented', () => {
    expect(errorOf(check({ presented: null }))).to.deep.equal([
      401,
      'public_key_required',
      'public_key_check',
    ]);
  });

  it('makes unknown, mistyped and foreign-product keys indistinguishable', () => {
    const unknown = check({ presented: 'lpk_ffffffffffffffffffffffffffffffff' });
    const mistyped = check({ presented: `${KEY}x` });
    const foreign = check({ productId: OTHER });
    const bodies = [unknown, mistyped, foreign].map((r) => (r.ok ? null : r.error.toBody()));
    expect(bodies[0]).to.deep.equal({
      error: {
        code: 'public_key_invalid',
        message: 'The public key is not valid.',
        step: 'public_key_check',
      },
    });
    expect(bodies[1]).to.deep.equal(bodies[0]);
    expect(bodies[2]).to.deep.equal(bodies[0]);
  });

  it('answers 403 public_key_scope when the scope does not cover the route', () => {
    expect(errorOf(check({ route: emails }))).to.deep.equal([403, 'public_key_scope', 'public_key_check']);
  });

  it('answers 403 for a key revoked within the window and 401 once the window has passed', () => {
    const revokedAt = 1_000_000 - 30_000;
    const snapshot = snapshotWith({ revokedAtMs: revokedAt });
    expect(errorOf(check({ snapshot, clock: new ManualClock(revokedAt + 30_000) }))).to.deep.equal([
      403,
      'public_key_scope',
      'public_key_check',
    ]);
    expect(errorOf(check({ snapshot, clock: new ManualClock(revokedAt + 30_001) }))).to.deep.equal([
      401,
      'public_key_invalid',
      'public_key_check',
    ]);
  });

  it('decides by comparing digests, not by trusting the lookup', () => {
    // A snapshot whose lookup hands back a candidate with another digest: the comparison refuses it.
    const [stored] = [
      {
        id: 'k1',
        productId: PRODUCT,
        hash: sha256Hex(`${KEY}0`),
        scope: { kind: 'product' as const },
        revokedAtMs: null,
      },
    ];
    const lying = { loadedAtMs: 0, size: 1, get: () => stored };
    expect(errorOf(check({ snapshot: lying }))).to.deep.equal([
      401,
      'public_key_invalid',
      'public_key_check',
    ]);
    const malformed = { ...lying, get: () => ({ ...stored, hash: 'not a digest' }) };
    expect(errorOf(check({ snapshot: malformed }))).to.deep.equal([
      401,
      'public_key_invalid',
      'public_key_check',
    ]);
  });
});
