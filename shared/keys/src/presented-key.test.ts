import { expect } from 'chai';
import { readPresentedKey } from './presented-key.ts';

describe('reading the presented public key', () => {
  it('prefers Authorization: Bearer, then X-Public-Key, then X-Api-Key', () => {
    const all = { authorization: 'Bearer a', 'x-public-key': 'b', 'x-api-key': 'c' };
    expect(readPresentedKey(all)).to.equal('a');
    expect(readPresentedKey({ 'x-public-key': 'b', 'x-api-key': 'c' })).to.equal('b');
    expect(readPresentedKey({ 'x-api-key': 'c' })).to.equal('c');
    expect(readPresentedKey({ authorization: 'bearer  a ' })).to.equal('a');
    expect(readPresentedKey({ authorization: 'Bearer lpk_0123' })).to.equal('lpk_0123');
    expect(readPresentedKey({ authorization: 'Bearer\tlpk_0123' })).to.equal('lpk_0123');
    expect(readPresentedKey({ authorization: 'BEARER lpk_0123' })).to.equal('lpk_0123');
    expect(readPresentedKey({ authorization: 'Bearer \u00a0lpk_0123' })).to.equal('lpk_0123');
  });

  it('ignores another Authorization scheme and falls through to the key headers', () => {
    expect(readPresentedKey({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'c' })).to.equal('c');
    expect(readPresentedKey({ authorization: 'Basic dXNlcjpwYXNz' })).to.equal(null);
    expect(readPresentedKey({ authorization: 'Bearer', 'x-public-key': 'b' })).to.equal('b');
    expect(readPresentedKey({ 'x-public-key': '  ' })).to.equal(null);
    // Whitespace inside the credential is no Bearer credential at all.
    expect(readPresentedKey({ authorization: 'Bearer a b', 'x-api-key': 'c' })).to.equal('c');
    expect(readPresentedKey({ authorization: 'Bearer a\u00a0b' })).to.equal(null);
    expect(readPresentedKey({ authorization: 'Bearerx a' })).to.equal(null);
  });
});
