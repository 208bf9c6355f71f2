import { expect } from 'chai';
import { EMPTY_PAYLOAD_SHA256, sha256Hex, signV4, uriEncode } from './sigv4.ts';

describe('SigV4 signing', () => {
  it('matches the S3 documentation example (GET Object with a range)', () => {
    const signed = signV4(
      {
        method: 'GET',
        url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
        headers: { Range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY_PAYLOAD_SHA256 },
        payloadHash: EMPTY_PAYLOAD_SHA256,
      },
      {
        credentials: {
          accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
          secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        },
        region: 'us-east-1',
        service: 's3',
        date: new Date('2013-05-24T00:00:00Z'),
      },
    );
    expect(signed.canonicalRequest).to.equal(
      [
        'GET',
        '/test.txt',
        '',
        'host:examplebucket.s3.amazonaws.com',
        'range:bytes=0-9',
        `x-amz-content-sha256:${EMPTY_PAYLOAD_SHA256}`,
        'x-amz-date:20130524T000000Z',
        '',
        'host;range;x-amz-content-sha256;x-amz-date',
        EMPTY_PAYLOAD_SHA256,
      ].join('\n'),
    );
    expect(sha256Hex(signed.canonicalRequest)).to.equal(
      '7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972',
    );
    expect(signed.signature).to.equal('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    expect(signed.headers.authorization).to.equal(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('matches the SigV4 test suite (get-vanilla-query-order-key-case: query sorted by key)', () => {
    const signed = signV4(
      {
        method: 'GET',
        url: new URL('https://example.amazonaws.com/?Param2=value2&Param1=value1'),
        headers: {},
        payloadHash: EMPTY_PAYLOAD_SHA256,
      },
      {
        credentials: {
          accessKeyId: 'AKIDEXAMPLE',
          secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
        },
        region: 'us-east-1',
        service: 'service',
        date: new Date('2015-08-30T12:36:00Z'),
        doubleEncodePath: true,
      },
    );
    expect(signed.canonicalRequest.split('\n')[2]).to.equal('Param1=value1&Param2=value2');
    expect(signed.signature).to.equal('b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500');
  });

  it('encodes per RFC 3986, keeping slashes in paths when asked', () => {
    expect(uriEncode('a b/c~d*é')).to.equal('a%20b%2Fc~d%2A%C3%A9');
    expect(uriEncode('p/2025-01-01/x y', false)).to.equal('p/2025-01-01/x%20y');
  });
});
