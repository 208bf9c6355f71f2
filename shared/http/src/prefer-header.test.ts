import { expect } from 'chai';
import { parsePreferHeader } from './prefer-header.ts';

const plain = (header: string | string[] | undefined) =>
  Object.fromEntries(
    [...parsePreferHeader(header)].map(([name, p]) => [
      name,
      { value: p.value, params: Object.fromEntries(p.params) },
    ]),
  );

describe('Prefer header (RFC 7240)', () => {
  it('reads preferences with and without values, names lowercased, values as sent', () => {
    expect(plain('return=representation')).to.deep.equal({
      return: { value: 'representation', params: {} },
    });
    expect(plain('RESPOND-ASYNC, Wait=10')).to.deep.equal({
      'respond-async': { value: null, params: {} },
      wait: { value: '10', params: {} },
    });
    expect(plain('return = Representation ;  foo=bar; x')).to.deep.equal({
      return: { value: 'Representation', params: { foo: 'bar', x: null } },
    });
  });

  it('takes several headers as one list, and the first of a repeated preference', () => {
    expect(plain(['return=minimal', 'return=representation, wait=2', 'wait=3'])).to.deep.equal({
      return: { value: 'minimal', params: {} },
      wait: { value: '2', params: {} },
    });
    // As Node hands repeated headers over: joined with ", ".
    expect(plain('wait=1, return=representation')).to.deep.equal({
      wait: { value: '1', params: {} },
      return: { value: 'representation', params: {} },
    });
  });

  it('unquotes quoted strings, with escapes and commas inside', () => {
    expect(plain('foo="a, b \\"c\\"", return="representation"')).to.deep.equal({
      foo: { value: 'a, b "c"', params: {} },
      return: { value: 'representation', params: {} },
    });
  });

  it('ignores malformed elements and keeps the rest', () => {
    expect(plain('=x, return=represent ation, wait=, "q", handling=lenient;=1, ,, wait=4')).to.deep.equal({
      wait: { value: '4', params: {} },
    });
    expect(plain('foo="unterminated, return=representation')).to.deep.equal({});
    expect(plain('')).to.deep.equal({});
    expect(plain(undefined)).to.deep.equal({});
  });
});
