import type { ApiError } from '@lattice/core';
import { expect } from 'chai';
import { parseFormBody } from './form-body.ts';

const URLENCODED = 'application/x-www-form-urlencoded';

function multipart(boundary: string, parts: string[], opts: { preamble?: string; close?: boolean } = {}) {
  const body = parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('');
  return Buffer.from(
    `${opts.preamble ?? ''}${body}${opts.close === false ? '' : `--${boundary}--\r\n`}`,
    'utf8',
  );
}

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('not refused');
}

describe('parseFormBody', () => {
  it('reads RFC 8058 one-click bodies in both encodings', () => {
    expect(parseFormBody(URLENCODED, Buffer.from('List-Unsubscribe=One-Click'))).to.deep.equal({
      'List-Unsubscribe': 'One-Click',
    });
    const body = multipart('----x7', [
      'Content-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click',
    ]);
    expect(parseFormBody('multipart/form-data; boundary=----x7', body)).to.deep.equal({
      'List-Unsubscribe': 'One-Click',
    });
  });

  it('decodes percent escapes and UTF-8, keeps the first of repeated names, and `__proto__` as a field', () => {
    const fields = parseFormBody(
      `${URLENCODED}; charset=UTF-8`,
      Buffer.from('a=%C3%A9+x&a=second&__proto__=p&b=%zz'),
    );
    expect(fields).to.deep.equal({ a: 'é x', ['__proto__']: 'p', b: '%zz' });
    expect(Object.getPrototypeOf(fields)).to.equal(Object.prototype);
    expect(parseFormBody(URLENCODED, Buffer.alloc(0))).to.deep.equal({});
  });

  it('reads multipart fields with a quoted boundary, a preamble, empty parts and values; skips files', () => {
    const body = multipart(
      'b:q=1',
      [
        'Content-Disposition: form-data; name="note"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nline 1\r\nline 2 ü',
        '',
        'content-disposition: form-data; name="empty"\r\n\r\n',
        'Content-Disposition: form-data; name="upload"; filename="a.txt"\r\n\r\nfile',
        'X-Other: 1\r\n\r\nno disposition',
      ],
      { preamble: 'ignored preamble\r\n' },
    );
    expect(parseFormBody('multipart/form-data; boundary="b:q=1"', body)).to.deep.equal({
      note: 'line 1\r\nline 2 ü',
      empty: '',
    });
    expect(parseFormBody('multipart/form-data; boundary=bnd', Buffer.from('--bnd--\r\n'))).to.deep.equal({});
  });

  it('refuses malformed multipart bodies with 400 invalid_form', () => {
    const part = 'Content-Disposition: form-data; name="a"\r\n\r\n1';
    const cases: Array<[string, Buffer]> = [
      ['multipart/form-data', multipart('x', [part])],
      [`multipart/form-data; boundary=${'b'.repeat(71)}`, multipart('b'.repeat(71), [part])],
      ['multipart/form-data; boundary=x', multipart('x', [part], { close: false })],
      ['multipart/form-data; boundary=x', Buffer.from('no delimiter at all')],
      [
        'multipart/form-data; boundary=x',
        Buffer.from('--x\r\nContent-Disposition: form-data; name="a"\r\n1\r\n--x--'),
      ],
      ['multipart/form-data; boundary=x', Buffer.from('--x\r\n--x--')],
    ];
    for (const [type, body] of cases) {
      const err = refusal(() => parseFormBody(type, body));
      expect(err, `${type}: ${body.toString()}`).to.include({
        status: 400,
        code: 'invalid_form',
        step: 'body_parsing',
      });
    }
    // 70 characters is the RFC 2046 bound and passes.
    const b70 = 'b'.repeat(70);
    expect(parseFormBody(`multipart/form-data; boundary=${b70}`, multipart(b70, [part]))).to.deep.equal({
      a: '1',
    });
  });
});
