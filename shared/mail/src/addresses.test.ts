import { expect } from 'chai';
import { isDomainName, parseMailbox } from './addresses.ts';

describe('mail addresses', () => {
  it('takes a bare address and one with a display name', () => {
    expect(parseMailbox('Ann@Example.ORG')).to.deep.equal({
      name: '',
      address: 'Ann@Example.ORG',
      normalized: 'ann@example.org',
      domain: 'example.org',
    });
    expect(parseMailbox('"Ann B." <ann@example.org>')).to.include({ name: 'Ann B.', domain: 'example.org' });
    expect(parseMailbox('Ann <ann@example.org>')).to.include({ name: 'Ann', address: 'ann@example.org' });
  });

  it('refuses lists, groups, header injection and addresses without a proper domain', () => {
    for (const bad of [
      '',
      'ann',
      'ann@',
      '@example.org',
      'ann@localhost',
      'a@b.c, d@e.f',
      'team: a@b.org;',
      'ann@example.org\r\nBcc: x@y.org',
      'ann@-bad.org',
      `${'a'.repeat(65)}@example.org`,
      'a..b@example.org',
    ]) {
      expect(parseMailbox(bad), bad).to.equal(null);
    }
  });

  it('checks domain names label by label', () => {
    expect(isDomainName('mail.example.org')).to.equal(true);
    expect(isDomainName('example')).to.equal(false);
    expect(isDomainName(`${'a'.repeat(64)}.org`)).to.equal(false);
  });
});
