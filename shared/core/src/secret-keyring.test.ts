import { expect } from 'chai';
import {
  generateSecretKeyEntry,
  openSecret,
  parseSecretKeys,
  SecretKeyError,
  sealSecret,
} from './secret-keyring.ts';

describe('secret keyring', () => {
  const old = generateSecretKeyEntry('old');
  const next = generateSecretKeyEntry('new');

  it('seals with the first key and opens with any key it still holds', () => {
    const before = parseSecretKeys(old);
    const sealed = sealSecret(before, 'dkim', 'private key');
    expect(sealed.startsWith('old.')).to.equal(true);
    const rotated = parseSecretKeys(`${next},${old}`);
    expect(openSecret(rotated, 'dkim', sealed)).to.equal('private key');
    expect(sealSecret(rotated, 'dkim', 'x').startsWith('new.')).to.equal(true);
    expect(() => openSecret(parseSecretKeys(next), 'dkim', sealed)).to.throw(
      SecretKeyError,
      /sealed with key old, which LATTICE_SECRET_KEYS does not hold/,
    );
  });

  it('tells the keyring of every value that does not open, with its purpose and kid', () => {
    const failures: string[] = [];
    const ring = {
      ...parseSecretKeys(old),
      openFailed: (purpose: string, kid: string) => failures.push(`${purpose}/${kid}`),
    };
    const sealed = sealSecret(ring, 'dkim', 'private key');
    expect(openSecret(ring, 'dkim', sealed)).to.equal('private key');
    expect(failures).to.deep.equal([]);
    const other = { ...parseSecretKeys(generateSecretKeyEntry('old')), openFailed: ring.openFailed };
    expect(() => openSecret(other, 'dkim', sealed)).to.throw(SecretKeyError, /key of that kid differs/);
    expect(() => openSecret(ring, 'dkim', `gone${sealed.slice(3)}`)).to.throw(SecretKeyError);
    expect(() => openSecret(ring, 'dkim', 'not.sealed')).to.throw(SecretKeyError, /malformed/);
    expect(failures).to.deep.equal(['dkim/old', 'dkim/gone', 'dkim/malformed']);
  });

  it('refuses a tampered seal and a seal of another purpose', () => {
    const ring = parseSecretKeys(old);
    const sealed = sealSecret(ring, 'dkim', 'private key');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[2]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[2] = body.toString('base64url');
    expect(() => openSecret(ring, 'dkim', parts.join('.'))).to.throw(SecretKeyError, /altered/);
    expect(() => openSecret(ring, 'tracking', sealed)).to.throw(SecretKeyError);
  });

  it('derives distinct keys per purpose and per kid', () => {
    const ring = parseSecretKeys(`${next},${old}`);
    expect(ring.purposeKey('new', 'a')!.equals(ring.purposeKey('new', 'b')!)).to.equal(false);
    expect(ring.purposeKey('new', 'a')!.equals(ring.purposeKey('old', 'a')!)).to.equal(false);
    expect(ring.purposeKey('gone', 'a')).to.equal(undefined);
  });

  it('names what is wrong with a configured value, never the key', () => {
    expect(() => parseSecretKeys('')).to.throw(SecretKeyError, /no key/);
    expect(() => parseSecretKeys('K1:abc')).to.throw(SecretKeyError, /kid/);
    expect(() => parseSecretKeys('k1:abcd')).to.throw(SecretKeyError, /32 bytes/);
    expect(() => parseSecretKeys(`${old},${old}`)).to.throw(SecretKeyError, /twice/);
  });
});
