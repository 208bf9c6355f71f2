import { expect } from 'chai';
import { formatHostPort, hostPortOfUrl, isLocalHost, parseHostPort } from './address.ts';

describe('address', () => {
  it('parses host:port, including bracketed IPv6', () => {
    expect(parseHostPort('127.0.0.1:9092')).to.deep.equal({ host: '127.0.0.1', port: 9092 });
    expect(parseHostPort('[::1]:9092')).to.deep.equal({ host: '::1', port: 9092 });
    expect(() => parseHostPort('kafka')).to.throw(/host:port/);
    expect(() => parseHostPort('kafka:0')).to.throw(/range/);
  });

  it('takes host and port from URLs, with the default port when none is given', () => {
    expect(hostPortOfUrl('postgres://postgres@127.0.0.1:5433/lattice', 5432)).to.deep.equal({
      host: '127.0.0.1',
      port: 5433,
    });
    expect(hostPortOfUrl('redis://localhost', 6379)).to.deep.equal({ host: 'localhost', port: 6379 });
    expect(formatHostPort({ host: '::1', port: 1 })).to.equal('[::1]:1');
  });

  it('only starts services for loopback addresses', () => {
    expect(isLocalHost('127.0.0.1')).to.equal(true);
    expect(isLocalHost('localhost')).to.equal(true);
    expect(isLocalHost('kafka.internal')).to.equal(false);
  });
});
