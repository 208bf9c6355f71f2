// The records a domain publishes, its selector and the names it may be added under.
import { expect } from 'chai';
import { dkimSelectorFor } from './dkim-key.ts';
import { DOMAIN_NAME_MAX_CHARS, sendingDomainName } from './domain-name.ts';
import { domainRecords } from './domain-records.ts';

const KEY = `MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${'x'.repeat(340)}IDAQAB`;
const SETTINGS = { returnPathMx: 'MX.Lattice.example.', spfInclude: 'spf.lattice.example' };

describe('domain records', () => {
  it('are the DKIM key, the return path MX and its SPF, fully qualified, without trailing dots', () => {
    const records = domainRecords(
      { name: 'mail.example.org', selector: 'l20261124', publicKeyBase64: KEY },
      SETTINGS,
    );
    expect(records.map(({ kind, ...shown }) => shown)).to.deep.equal([
      {
        type: 'TXT',
        name: 'l20261124._domainkey.mail.example.org',
        value: `v=DKIM1; k=rsa; p=${KEY}`,
        status: 'pending',
      },
      {
        type: 'MX',
        name: 'send.mail.example.org',
        value: 'mx.lattice.example',
        priority: 10,
        status: 'pending',
      },
      {
        type: 'TXT',
        name: 'send.mail.example.org',
        value: 'v=spf1 include:spf.lattice.example ~all',
        status: 'pending',
      },
    ]);
  });

  it('carry the status they are given', () => {
    const records = domainRecords(
      { name: 'a.example', selector: 's', publicKeyBase64: 'AQAB' },
      SETTINGS,
      'verified',
    );
    expect(records.map((r) => r.status)).to.deep.equal(['verified', 'verified', 'verified']);
  });

  it('keep a long DKIM value as one string, however long the key', () => {
    const [dkim] = domainRecords({ name: 'a.example', selector: 's', publicKeyBase64: KEY }, SETTINGS);
    expect(dkim!.value.length).to.be.greaterThan(255);
    expect(dkim!.value).to.not.match(/["\r\n]/);
  });
});

describe('DKIM selector', () => {
  const day = Date.UTC(2026, 10, 24, 23, 59, 59);

  it('is l<yyyymmdd> of the UTC day the key is made', () => {
    expect(dkimSelectorFor(day)).to.equal('l20261124');
    expect(dkimSelectorFor(day + 1000)).to.equal('l20261125');
    expect(dkimSelectorFor(day, 'l20261001')).to.equal('l20261124');
  });

  it('counts on for a second key on the same day, so the next selector never equals the current one', () => {
    expect(dkimSelectorFor(day, 'l20261124')).to.equal('l202611242');
    expect(dkimSelectorFor(day, 'l202611242')).to.equal('l202611243');
    expect(dkimSelectorFor(day, 'l2026112409')).to.equal('l2026112410');
  });
});

describe('sending domain names', () => {
  it('are trimmed, lower-cased and lose a trailing dot', () => {
    expect(sendingDomainName(' Mail.Example.ORG. ')).to.equal('mail.example.org');
    expect(sendingDomainName('xn--bcher-kva.example')).to.equal('xn--bcher-kva.example');
  });

  it('refuse what is not a host name of two labels or more, and IPv4 literals', () => {
    for (const bad of [
      'example',
      '',
      '.',
      'a..example',
      '-a.example',
      'a_b.example',
      'ann@example.org',
      '10.0.0.1',
      'a.example/x',
      'a .example',
    ]) {
      expect(sendingDomainName(bad), bad).to.equal(null);
    }
    expect(sendingDomainName('1.example')).to.equal('1.example');
  });

  it('take names up to the length that leaves room for the DKIM record name, not one more', () => {
    const max = nameOfLength(DOMAIN_NAME_MAX_CHARS);
    expect(max).to.have.length(DOMAIN_NAME_MAX_CHARS);
    expect(sendingDomainName(max)).to.equal(max);
    expect(sendingDomainName(nameOfLength(DOMAIN_NAME_MAX_CHARS + 1))).to.equal(null);
    expect(`l2026112410._domainkey.${max}`.length).to.be.at.most(253);
  });
});

/** A valid host name of exactly `n` characters: labels of at most 62 under `.example`. */
function nameOfLength(n: number): string {
  const labels: string[] = [];
  let left = n - '.example'.length;
  while (left > 63) {
    labels.push('a'.repeat(62));
    left -= 63;
  }
  labels.push('b'.repeat(left));
  return `${labels.join('.')}.example`;
}
