import { expect } from 'chai';
import { fieldGroups, fieldValue, headerBlock, reportAddress, withoutType } from './report-fields.ts';

describe('report fields', () => {
  it('splits groups at blank lines and unfolds folded values, whatever the line ends', () => {
    for (const eol of ['\r\n', '\n', '\r']) {
      const text = [
        'Reporting-MTA: dns; mx.example.org',
        '',
        'Final-Recipient: rfc822; a@example.org',
        'Diagnostic-Code: smtp; 550 5.1.1 first line',
        '\t  second   line',
        '',
        '',
        'Final-Recipient: rfc822; b@example.org',
      ].join(eol);
      const groups = fieldGroups(text);
      expect(groups, JSON.stringify(eol)).to.have.length(3);
      expect(fieldValue(groups[1]!, 'diagnostic-code')).to.equal('smtp; 550 5.1.1 first line second line');
      expect(fieldValue(groups[2]!, 'Final-Recipient')).to.equal('rfc822; b@example.org');
    }
  });

  it('reads field names in any case and skips lines that are no field, with their continuations', () => {
    const [group] = fieldGroups('ACTION: failed\nthis is no field\n  nor is this\nsTaTuS : 5.1.1\n');
    expect(group!.map((f) => f.name)).to.deep.equal(['action', 'status']);
    expect(fieldValue(group!, 'Action')).to.equal('failed');
    expect(fieldValue(group!, 'status')).to.equal('5.1.1');
    expect(fieldValue(group!, 'diagnostic-code')).to.equal(null);
  });

  it('takes a header block up to its first blank line, after leading blank lines', () => {
    const block = headerBlock(
      '\r\n\r\nMessage-ID: <x@example.org>\r\nTo: a@example.org\r\n\r\nBody: not a header\r\n',
    );
    expect(block.map((f) => f.name)).to.deep.equal(['message-id', 'to']);
    expect(headerBlock('')).to.deep.equal([]);
  });

  it('strips the address and diagnostic types, and only those', () => {
    expect(withoutType('rfc822; ann@example.org')).to.equal('ann@example.org');
    expect(withoutType('RFC822;ann@example.org')).to.equal('ann@example.org');
    expect(withoutType('X-Postfix; connect to host: timed out')).to.equal('connect to host: timed out');
    expect(withoutType('ann@example.org')).to.equal('ann@example.org');
    expect(withoutType('550 5.1.1 user unknown; try later')).to.equal('550 5.1.1 user unknown; try later');
  });

  it('reads a lower-cased bare address from typed fields and paths, null when there is none', () => {
    expect(reportAddress('rfc822; <Ann.Lee@Example.NET>')).to.equal('ann.lee@example.net');
    expect(reportAddress('rfc822;carl@mailhost.example.org')).to.equal('carl@mailhost.example.org');
    expect(reportAddress('<bounce+x@send.example.org>')).to.equal('bounce+x@send.example.org');
    expect(reportAddress('rfc822; redacted')).to.equal(null);
    expect(reportAddress('rfc822; @example.org')).to.equal(null);
    expect(reportAddress('rfc822; ann@')).to.equal(null);
    expect(reportAddress('<>')).to.equal(null);
    expect(reportAddress(null)).to.equal(null);
  });
});
