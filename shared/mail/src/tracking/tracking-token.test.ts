import { randomUUID } from 'node:crypto';
import { generateSecretKeyEntry, parseSecretKeys } from '@lattice/core';
import { expect } from 'chai';
import {
  MAX_TRACKING_TOKEN_CHARS,
  signTrackingToken,
  type TrackingClaims,
  verifyTrackingToken,
} from './tracking-token.ts';

const k1 = generateSecretKeyEntry('k1');
const k2 = generateSecretKeyEntry('k2');
const keyring = parseSecretKeys(k1);
const productId = randomUUID();
const emailId = randomUUID();
const open: TrackingClaims = { kind: 'open', productId, emailId, recipient: 'ann@example.org' };
const click: TrackingClaims = { ...open, kind: 'click', url: 'https://example.org/a?b=1&c=%20d#top' };
const unsubscribe: TrackingClaims = { ...open, kind: 'unsubscribe' };

function sign(claims: TrackingClaims, ring = keyring): string {
  const token = signTrackingToken(ring, claims);
  if (token === null) throw new Error('did not fit');
  return token;
}

/** The token with one character of part `index` (0 kid, 1 payload, 2 mac) changed. */
function tamper(token: string, index: number, at: number): string {
  const parts = token.split('.');
  const part = parts[index]!;
  const i = at < 0 ? part.length + at : at;
  const swapped = part[i] === 'A' ? 'B' : 'A';
  parts[index] = part.slice(0, i) + swapped + part.slice(i + 1);
  return parts.join('.');
}

describe('tracking tokens', () => {
  it('round-trips each kind: `<kid>.<payload>.<mac>` in URL-safe characters', () => {
    for (const claims of [open, click, unsubscribe]) {
      const token = sign(claims);
      expect(token).to.match(/^k1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
      expect(verifyTrackingToken(keyring, token, { kind: claims.kind, productId })).to.deep.equal(claims);
    }
  });

  it('refuses a token with any part changed: kid, payload (first and last character) or mac', () => {
    const token = sign(click);
    const expected = { kind: 'click' as const, productId };
    for (const [index, at] of [
      [1, 0],
      [1, -1],
      [2, 0],
      [2, 20],
      [2, -1],
    ] as const) {
      expect(verifyTrackingToken(keyring, tamper(token, index, at), expected), `${index}@${at}`).to.equal(
        null,
      );
    }
    const [, payload, mac] = token.split('.');
    expect(verifyTrackingToken(keyring, `k9.${payload}.${mac}`, expected)).to.equal(null);
    expect(verifyTrackingToken(keyring, `${token}.x`, expected)).to.equal(null);
    expect(verifyTrackingToken(keyring, token.slice(0, -1), expected)).to.equal(null);
    expect(verifyTrackingToken(keyring, '', expected)).to.equal(null);
    expect(verifyTrackingToken(keyring, 'k1..', expected)).to.equal(null);
  });

  it('accepts only the canonical spelling of the mac (its last character carries two spare bits)', () => {
    const token = sign(open);
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // The four characters that decode to the same final byte bits.
    const base = alphabet.indexOf(last) & ~3;
    const variants = [0, 1, 2, 3].map((n) => alphabet[base + n]!).filter((c) => c !== last);
    expect(variants).to.have.length(3);
    for (const c of variants)
      expect(verifyTrackingToken(keyring, token.slice(0, -1) + c, { kind: 'open', productId })).to.equal(
        null,
      );
  });

  it('verifies with every kid the keyring holds and signs with the current one (rotation)', () => {
    const before = parseSecretKeys(k1);
    const rotated = parseSecretKeys(`${k2},${k1}`);
    const retired = parseSecretKeys(k2);
    const old = sign(open, before);
    const fresh = sign(open, rotated);
    expect(fresh.startsWith('k2.')).to.equal(true);
    const expected = { kind: 'open' as const, productId };
    expect(verifyTrackingToken(rotated, old, expected)).to.deep.equal(open);
    expect(verifyTrackingToken(rotated, fresh, expected)).to.deep.equal(open);
    expect(verifyTrackingToken(before, fresh, expected), 'k2 unknown to the old keyring').to.equal(null);
    expect(verifyTrackingToken(retired, old, expected), 'k1 dropped').to.equal(null);
  });

  it('refuses a token under a keyring whose kid has another secret', () => {
    const impostor = parseSecretKeys(generateSecretKeyEntry('k1'));
    expect(verifyTrackingToken(impostor, sign(open), { kind: 'open', productId })).to.equal(null);
  });

  it('refuses a valid token on a route of another kind', () => {
    const token = sign(open);
    expect(verifyTrackingToken(keyring, token, { kind: 'click', productId })).to.equal(null);
    expect(verifyTrackingToken(keyring, token, { kind: 'unsubscribe', productId })).to.equal(null);
    expect(verifyTrackingToken(keyring, sign(unsubscribe), { kind: 'open', productId })).to.equal(null);
  });

  it('refuses a valid token under another product', () => {
    expect(verifyTrackingToken(keyring, sign(open), { kind: 'open', productId: randomUUID() })).to.equal(
      null,
    );
  });

  it('bounds tokens at MAX_TRACKING_TOKEN_CHARS: exactly the bound verifies, one more is refused unread', () => {
    const make = (urlLength: number) => ({ ...click, url: `https://e.org/${'a'.repeat(urlLength - 14)}` });
    // Grow the URL until the token is exactly at the bound (base64 grows by 4 per 3 bytes).
    let length = 100;
    while ((signTrackingToken(keyring, make(length + 1))?.length ?? Infinity) <= MAX_TRACKING_TOKEN_CHARS)
      length++;
    const atBound = sign(make(length));
    expect(atBound.length).to.be.within(MAX_TRACKING_TOKEN_CHARS - 3, MAX_TRACKING_TOKEN_CHARS);
    expect(verifyTrackingToken(keyring, atBound, { kind: 'click', productId })).to.deep.equal(make(length));
    expect(signTrackingToken(keyring, make(length + 3))).to.equal(null);
    const padded = `${atBound}${'A'.repeat(MAX_TRACKING_TOKEN_CHARS + 1 - atBound.length)}`;
    expect(padded).to.have.length(MAX_TRACKING_TOKEN_CHARS + 1);
    expect(verifyTrackingToken(keyring, padded, { kind: 'click', productId })).to.equal(null);
    expect(
      verifyTrackingToken(keyring, `k1.${'A'.repeat(100_000)}.${'A'.repeat(43)}`, {
        kind: 'click',
        productId,
      }),
    ).to.equal(null);
  });

  it('refuses a click token whose URL is not http(s), even correctly signed', () => {
    for (const url of [
      'javascript:alert(1)',
      'mailto:a@b.org',
      '//evil.example',
      'https://',
      'ftp://x.org/',
    ]) {
      const token = sign({ ...click, url });
      expect(verifyTrackingToken(keyring, token, { kind: 'click', productId }), url).to.equal(null);
    }
    expect(
      verifyTrackingToken(keyring, sign({ ...click, url: 'HTTP://X.ORG/' }), { kind: 'click', productId }),
    ).to.have.property('url', 'HTTP://X.ORG/');
  });
});
