import { expect } from 'chai';
import { attemptErrorText } from './attempt-error.ts';

const errno = (message: string, props: Record<string, unknown>) => Object.assign(new Error(message), props);

describe('webhook attempt error text', () => {
  it('names connection failures in words, with the peer tried', () => {
    expect(
      attemptErrorText(
        errno('connect ECONNREFUSED 127.0.0.1:8443', {
          code: 'ECONNREFUSED',
          address: '127.0.0.1',
          port: 8443,
        }),
      ),
    ).to.equal('connection refused (127.0.0.1:8443)');
    expect(
      attemptErrorText(
        errno('connect ECONNREFUSED ::1:443', { code: 'ECONNREFUSED', address: '::1', port: 443 }),
      ),
    ).to.equal('connection refused ([::1]:443)');
    expect(attemptErrorText(errno('read ECONNRESET', { code: 'ECONNRESET' }))).to.equal(
      'connection reset by the receiver',
    );
    expect(attemptErrorText(errno('socket hang up', { code: 'ECONNRESET' }))).to.equal(
      'connection closed before an answer',
    );
  });

  it('says a certificate failure is one', () => {
    expect(
      attemptErrorText(
        errno('unable to verify the first certificate', { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }),
      ),
    ).to.equal('certificate: unable to verify the first certificate');
    expect(
      attemptErrorText(
        errno(
          'self-signed certificate; if the root CA is installed locally, try running Node.js with --use-system-ca',
          { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
        ),
      ),
    ).to.equal('certificate: self-signed certificate');
    expect(attemptErrorText(errno('certificate has expired', { code: 'CERT_HAS_EXPIRED' }))).to.equal(
      'certificate: certificate has expired',
    );
    expect(
      attemptErrorText(
        errno(
          "Hostname/IP does not match certificate's altnames: Host: a.example. is not in the cert's altnames",
          {
            code: 'ERR_TLS_CERT_ALTNAME_INVALID',
          },
        ),
      ),
    ).to.match(/^certificate: Hostname\/IP does not match/);
  });

  it('keeps other errors to one short line', () => {
    expect(
      attemptErrorText(errno('Parse Error: Invalid header value char', { code: 'HPE_INVALID_HEADER_TOKEN' })),
    ).to.equal('invalid HTTP answer: Parse Error: Invalid header value char');
    expect(
      attemptErrorText(errno('wrong version number', { code: 'ERR_SSL_WRONG_VERSION_NUMBER' })),
    ).to.equal('TLS: wrong version number');
    expect(attemptErrorText(new Error(`first line\nsecond line ${'x'.repeat(500)}`))).to.equal('first line');
    expect(attemptErrorText(new Error('y'.repeat(500)))).to.have.length(200);
    expect(attemptErrorText('a string')).to.equal('a string');
  });
});
