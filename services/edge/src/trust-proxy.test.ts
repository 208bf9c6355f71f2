import { expect } from 'chai';
import { parseTrustProxy } from './trust-proxy.ts';

describe('parseTrustProxy', () => {
  it('maps the configuration string to express trust proxy values', () => {
    expect(parseTrustProxy('false')).to.equal(false);
    expect(parseTrustProxy('')).to.equal(false);
    expect(parseTrustProxy('true')).to.equal(true);
    expect(parseTrustProxy('2')).to.equal(2);
    expect(parseTrustProxy('loopback')).to.deep.equal(['loopback']);
    expect(parseTrustProxy(' loopback, 10.0.0.0/8 ,')).to.deep.equal(['loopback', '10.0.0.0/8']);
  });
});
