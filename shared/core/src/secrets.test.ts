import { expect } from 'chai';
import {
  constantTimeEqual,
  mintSecret,
  parseSecret,
  sameStringConstantTime,
  sha256Hex,
  sha256HexEqual,
  visiblePart,
} from './secrets.ts';

describe('secrets', () => {
  it('mints prefix + 32 hex characters, different every time', () => {
    const a = mintSecret('lpk_');
    expect(a).to.match(/^lpk_[0-9a-f]{32}$/);
    expect(mintSecret('lpk_')).to.not.equal(a);
  });

  it('hashes with SHA-256 hex', () => {
    expect(sha256Hex('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('compares in constant time and rejects prefixes and different lengths', () => {
    expect(constantTimeEqual('lmt_abc', 'lmt_abc')).to.equal(true);
    expect(constantTimeEqual('lmt_abc', 'lmt_abd')).to.equal(false);
    expect(constantTimeEqual('lmt_ab', 'lmt_abc')).to.equal(false);
  });

  it('compares short strings in constant time without hashing', () => {
    expect(sameStringConstantTime('lpk_abc', 'lpk_abc')).to.equal(true);
    expect(sameStringConstantTime('lpk_abc', 'lpk_abd')).to.equal(false);
    expect(sameStringConstantTime('xpk_abc', 'lpk_abc')).to.equal(false);
    expect(sameStringConstantTime('lpk_ab', 'lpk_abc')).to.equal(false);
    expect(sameStringConstantTime('', '')).to.equal(true);
  });

  it('compares SHA-256 hex digests without hashing them again', () => {
    const a = sha256Hex('lpk_a');
    const b = sha256Hex('lpk_b');
    expect(sha256HexEqual(a, a)).to.equal(true);
    expect(sha256HexEqual(a, sha256Hex('lpk_a'))).to.equal(true);
    expect(sha256HexEqual(a, b)).to.equal(false);
    // Only the last byte differs.
    expect(sha256HexEqual(a, `${a.slice(0, 62)}${a.endsWith('00') ? '01' : '00'}`)).to.equal(false);
    // Malformed digests equal nothing, not even themselves.
    expect(sha256HexEqual(a.slice(0, 62), a.slice(0, 62))).to.equal(false);
    expect(sha256HexEqual(`${a.slice(0, 62)}zz`, `${a.slice(0, 62)}zz`)).to.equal(false);
    expect(sha256HexEqual('', '')).to.equal(false);
    // A bad call leaves nothing behind for the next one.
    expect(sha256HexEqual(b, b)).to.equal(true);
  });

  it('parses and shows only the first eight characters of the body', () => {
    const s = 'lpk_0123456789abcdef0123456789abcdef';
    expect(parseSecret(s)).to.deep.equal({ prefix: 'lpk_', body: '0123456789abcdef0123456789abcdef' });
    expect(visiblePart(s)).to.equal('01234567');
    expect(parseSecret('lpk_xyz')).to.equal(null);
    expect(parseSecret('lpk_0123456789ABCDEF0123456789abcdef')).to.equal(null);
  });
});
