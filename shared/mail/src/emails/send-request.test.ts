import { ApiError } from '@lattice/core';
import { expect } from 'chai';
import { checkSendBody } from './send-request.ts';

function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return (err.fields ?? []).map((f) => f.path);
    throw err;
  }
  return [];
}

describe('send body checks', () => {
  const base = { from: 'Ann <ann@mail.example.org>', to: 'bob@example.net', subject: 'Hi', html: '<p>x</p>' };

  it('parses the mailboxes and keeps the rest', () => {
    const r = checkSendBody({ ...base, text: 'x', reply_to: 'help@example.org', headers: { 'X-Ref': '1' } });
    expect(r.from).to.include({ name: 'Ann', domain: 'mail.example.org' });
    expect(r.to.normalized).to.equal('bob@example.net');
    expect(r.replyTo?.address).to.equal('help@example.org');
    expect(r.headers).to.deep.equal({ 'X-Ref': '1' });
  });

  it('names every field that is wrong at once', () => {
    expect(
      fieldsOf(() =>
        checkSendBody({ from: 'nope', to: 'a@b.org, c@d.org', subject: 's', reply_to: 'x', headers: {} }),
      ),
    ).to.deep.equal(['body.from', 'body.to', 'body.reply_to', 'body.html']);
  });

  it('accepts text alone, html alone, and refuses neither', () => {
    expect(() => checkSendBody({ ...base, html: undefined, text: 't' })).not.to.throw();
    expect(fieldsOf(() => checkSendBody({ ...base, html: undefined }))).to.deep.equal(['body.html']);
  });

  it('refuses headers the platform writes and values with line breaks', () => {
    expect(
      fieldsOf(() =>
        checkSendBody({
          ...base,
          headers: {
            bcc: 'x@y.org',
            'Content-Type': 'text/plain',
            'X-Lattice-Id': '1',
            'X-Ok': 'a\r\nBcc: e@f.org',
          },
        }),
      ),
    ).to.deep.equal([
      'body.headers.bcc',
      'body.headers.Content-Type',
      'body.headers.X-Lattice-Id',
      'body.headers.X-Ok',
    ]);
  });

  it('bounds display names at 256 characters (both sides), naming the field', () => {
    const named = (n: number) => `"${'N'.repeat(n)}" <a@example.org>`;
    expect(
      checkSendBody({ ...base, from: named(256), to: named(256), reply_to: named(256) }).from.name,
    ).to.have.length(256);
    expect(
      fieldsOf(() => checkSendBody({ ...base, from: named(257), to: named(257), reply_to: named(257) })),
    ).to.deep.equal(['body.from', 'body.to', 'body.reply_to']);
  });

  it('refuses trace and authentication headers, whatever their case, and keeps look-alikes', () => {
    const trace = [
      'Received',
      'return-path',
      'Delivered-To',
      'Authentication-Results',
      'DKIM-Signature',
      'Received-SPF',
      'ARC-Seal',
      'arc-message-signature',
      'ARC-Authentication-Results',
      'Resent-From',
      'RESENT-MESSAGE-ID',
    ];
    for (const name of trace) {
      try {
        checkSendBody({
          ...base,
          headers: { [name]: 'mx.bank.example; dmarc=pass header.from=bank.example' },
        });
        expect.fail(`${name} was accepted`);
      } catch (err) {
        expect(err, name).to.be.instanceOf(ApiError);
        const e = err as ApiError;
        expect(e.status).to.equal(400);
        expect(e.fields?.map((f) => f.path)).to.deep.equal([`body.headers.${name}`]);
        expect(e.fields?.[0]?.message).to.match(/trace or authentication header/);
      }
    }
    const alike = { 'X-Received': '1', 'X-Arc': '2', Resentment: '3', 'X-Authentication-Results-Copy': '4' };
    expect(checkSendBody({ ...base, headers: alike }).headers).to.deep.equal(alike);
  });

  it('refuses NUL characters, which PostgreSQL cannot store, naming the field', () => {
    expect(fieldsOf(() => checkSendBody({ ...base, subject: 'a\u0000', text: '\u0000' }))).to.deep.equal([
      'body.subject',
      'body.text',
    ]);
  });
});
