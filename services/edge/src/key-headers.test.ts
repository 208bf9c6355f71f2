import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { expect } from 'chai';
import { stripsLazily, takeKeyHeaders } from './key-headers.ts';

/** A request as Node's HTTP parser hands it over: raw headers, views not built yet. */
function parsed(rawHeaders: string[]): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  (req as unknown as { _addHeaderLines(raw: string[], n: number): void })._addHeaderLines(
    rawHeaders,
    rawHeaders.length,
  );
  return req;
}

const RAW = [
  'Authorization',
  'Bearer k1',
  'Accept',
  '*/*',
  'X-PUBLIC-KEY',
  'k2',
  'x-api-key',
  'k3',
  'authorization',
  'Bearer second',
  'X-Public-Key',
  'k4',
  'X-Other',
  'v',
];

describe('takeKeyHeaders', () => {
  it('can leave headersDistinct unbuilt on this Node (the probe found the header count)', () => {
    // Fails on a Node whose internals moved: the edge would still be correct, but slower.
    expect(stripsLazily).to.equal(true);
  });

  it('reads the key headers as req.headers would show them', () => {
    const values = takeKeyHeaders(parsed([...RAW]));
    const node = parsed([...RAW]).headers;
    expect(values).to.deep.equal({
      authorization: node.authorization,
      'x-public-key': node['x-public-key'],
      'x-api-key': node['x-api-key'],
    });
    expect(values).to.deep.equal({ authorization: 'Bearer k1', 'x-public-key': 'k2, k4', 'x-api-key': 'k3' });
  });

  it('removes them from headers, headersDistinct and rawHeaders, whatever their case', () => {
    const req = parsed([...RAW]);
    takeKeyHeaders(req);
    expect(req.rawHeaders).to.deep.equal(['Accept', '*/*', 'X-Other', 'v']);
    expect(req.headers).to.deep.equal({ accept: '*/*', 'x-other': 'v' });
    expect({ ...req.headersDistinct }).to.deep.equal({ accept: ['*/*'], 'x-other': ['v'] });
  });

  it('removes them from views built before it ran', () => {
    const req = parsed([...RAW]);
    void req.headers;
    void req.headersDistinct;
    expect(takeKeyHeaders(req)).to.deep.equal({
      authorization: 'Bearer k1',
      'x-public-key': 'k2, k4',
      'x-api-key': 'k3',
    });
    expect(req.rawHeaders).to.deep.equal(['Accept', '*/*', 'X-Other', 'v']);
    expect(req.headers).to.deep.equal({ accept: '*/*', 'x-other': 'v' });
    expect({ ...req.headersDistinct }).to.deep.equal({ accept: ['*/*'], 'x-other': ['v'] });
  });

  it('removes them when only headers was built', () => {
    const req = parsed([...RAW]);
    void req.headers;
    takeKeyHeaders(req);
    expect({ ...req.headersDistinct }).to.deep.equal({ accept: ['*/*'], 'x-other': ['v'] });
    expect(req.headers).to.deep.equal({ accept: '*/*', 'x-other': 'v' });
  });

  it('tells key headers from other names of the same length, in any letter case', () => {
    const req = parsed([
      'Content-Type',
      'a',
      'aUTHORIZATIOn',
      'Bearer k',
      'X-Api-Kez',
      'b',
      'x-PUBLIC-key',
      'p',
      'Authorizatio_',
      'c',
    ]);
    expect(takeKeyHeaders(req)).to.deep.equal({ authorization: 'Bearer k', 'x-public-key': 'p' });
    expect(req.rawHeaders).to.deep.equal(['Content-Type', 'a', 'X-Api-Kez', 'b', 'Authorizatio_', 'c']);
  });

  it('leaves a request without key headers untouched', () => {
    const raw = ['Accept', '*/*', 'X-Authorization-Hint', 'v'];
    const req = parsed(raw);
    expect(takeKeyHeaders(req)).to.deep.equal({});
    expect(req.rawHeaders).to.equal(raw);
    expect(req.rawHeaders).to.deep.equal(['Accept', '*/*', 'X-Authorization-Hint', 'v']);
    expect(req.headers).to.deep.equal({ accept: '*/*', 'x-authorization-hint': 'v' });
  });

  it('handles a request whose only headers are key headers', () => {
    const req = parsed(['X-Api-Key', 'k']);
    expect(takeKeyHeaders(req)).to.deep.equal({ 'x-api-key': 'k' });
    expect(req.rawHeaders).to.deep.equal([]);
    expect(req.headers).to.deep.equal({});
    expect({ ...req.headersDistinct }).to.deep.equal({});
  });
});
