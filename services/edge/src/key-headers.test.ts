import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { stripKeyHeadersFrom } from './key-headers.ts';

describe('stripKeyHeadersFrom', () => {
  it('removes the three key headers from headers and rawHeaders, whatever their case', () => {
    const req = {
      headers: { authorization: 'Bearer k', 'x-public-key': 'k', 'x-api-key': 'k', accept: '*/*' },
      headersDistinct: {
        authorization: ['Bearer k'],
        'x-public-key': ['k'],
        'x-api-key': ['k'],
        accept: ['*/*'],
      },
      rawHeaders: [
        'Authorization',
        'Bearer k',
        'Accept',
        '*/*',
        'X-PUBLIC-KEY',
        'k',
        'x-api-key',
        'k',
        'X-Other',
        'v',
      ],
    } as unknown as IncomingMessage;
    stripKeyHeadersFrom(req);
    expect(req.headers).to.deep.equal({ accept: '*/*' });
    expect(req.headersDistinct).to.deep.equal({ accept: ['*/*'] });
    expect(req.rawHeaders).to.deep.equal(['Accept', '*/*', 'X-Other', 'v']);
  });

  it('leaves a request without key headers untouched', () => {
    const rawHeaders = ['Accept', '*/*', 'X-Authorization-Hint', 'v'];
    const req = {
      headers: { accept: '*/*', 'x-authorization-hint': 'v' },
      rawHeaders,
    } as unknown as IncomingMessage;
    stripKeyHeadersFrom(req);
    expect(req.rawHeaders).to.equal(rawHeaders);
    expect(req.rawHeaders).to.deep.equal(['Accept', '*/*', 'X-Authorization-Hint', 'v']);
  });
});
