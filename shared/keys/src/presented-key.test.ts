import { expect } from 'chai';
import { readPresentedKey } from './presented-key.ts';

describe('reading the presented public key', () => {
  it('prefers Authorization: Bearer, then X-Public-Key, then X-Api-Key', () => {
    const all = { authorization: 'Bearer a', 'x-public-key': 'b', 'x-api-key': 'c' };
    expect(readPresentedKey(all)).to.equal('a');
    expect(readPresentedKey({ 'x-public-key': 'b', 'x-api-key': 'c' })).to.equal('b');
    expect(readPresentedKey({ 'x-api-key': 'c' })).to.equal('c');
    expect(readPresentedKey({ authorization: 'bearer  a ' })).to.equal('a');
  });

  it('ignores another Authorization scheme and falls through to the key headers', () => {
    expect(readPresentedKey({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'c' })).to.equal('c');
    expect(readPresentedKey({ authorization: 'Basic dXNlcjpwYXNz' })).to.equal(null);
    expect(readPresentedKey({ authorization: 'Bearer', 'x-public-key': 'b' })).to.equal('b');
    expect(readPresentedKey({ 'x-public-key': '  ' })).to.equal(null);
  });
});
