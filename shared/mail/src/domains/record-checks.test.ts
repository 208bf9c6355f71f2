// When DNS answers satisfy a domain's records: DKIM value equality up to insignificant
// whitespace, SPF by its one v=spf1 record holding our include, MX by exchange name.
import { expect } from 'chai';
import { type DomainRecord, domainRecords } from './domain-records.ts';
import { dkimValueMatches, normalizedDkimTags, recordVerified, spfValueMatches } from './record-checks.ts';

const KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdx/+QrQDeX53KbEbidaQkg6fSRI+aaD4ZrfAoE3aq3MKEO3Vm9lHu5cNbN5arBSqTB3rl2SzBVJ9lB5kQsaoV7TbnECdcWJCWcnTvE5dj+qIyV2IGEbVpmZ5UEfwG4cOpUc3ONgwIDAQAB';
const [DKIM, MX, SPF] = domainRecords(
  { name: 'example.org', selector: 'l20261124', publicKeyBase64: KEY },
  { returnPathMx: 'mx.lattice.example', spfInclude: 'spf.lattice.example' },
) as [DomainRecord, DomainRecord, DomainRecord];

describe('record checks', () => {
  describe('DKIM', () => {
    it('verifies the value as published, and with whitespace around tags, = and ; or a trailing ;', () => {
      for (const published of [
        `v=DKIM1; k=rsa; p=${KEY}`,
        `v=DKIM1;k=rsa;p=${KEY}`,
        ` v = DKIM1 ;  k=rsa ; p = ${KEY} ; `,
        `v=DKIM1; k=rsa; p=${KEY.slice(0, 100)} ${KEY.slice(100, 200)}\t${KEY.slice(200)}`,
      ]) {
        expect(dkimValueMatches(published, DKIM.value), published).to.equal(true);
      }
      expect(recordVerified(DKIM, ['v=spf1 -all', `v=DKIM1; k=rsa; p=${KEY}`])).to.equal(true);
    });

    it('does not verify another key, a cut key, missing or reordered tags, or nothing', () => {
      for (const published of [
        `v=DKIM1; k=rsa; p=${KEY.slice(0, -4)}AQAC`,
        `v=DKIM1; k=rsa; p=${KEY.slice(0, 255)}`,
        `v=DKIM1; p=${KEY}`,
        `k=rsa; v=DKIM1; p=${KEY}`,
        `"v=DKIM1; k=rsa; p=${KEY}"`,
        `v=DKIM1; k=rsa; p=${KEY.toLowerCase()}`,
        'v=DKIM1; k=rsa; p=',
        'not a tag list',
        '',
      ]) {
        expect(dkimValueMatches(published, DKIM.value), published).to.equal(false);
      }
      expect(recordVerified(DKIM, [])).to.equal(false);
    });

    it('normalises a tag list and refuses what is none', () => {
      expect(normalizedDkimTags(' v=DKIM1 ;k = rsa; ')).to.equal('v=DKIM1;k=rsa');
      expect(normalizedDkimTags('v=DKIM1; junk')).to.equal(null);
      expect(normalizedDkimTags('=x')).to.equal(null);
      expect(normalizedDkimTags(' ; ')).to.equal(null);
    });
  });

  describe('SPF', () => {
    it('verifies the one v=spf1 record of the name when it includes ours, however else it reads', () => {
      for (const published of [
        ['v=spf1 include:spf.lattice.example ~all'],
        ['v=spf1 ip4:192.0.2.1 +include:SPF.Lattice.Example. include:_spf.google.com -all'],
        ['google-site-verification=abc', 'v=spf1 include:spf.lattice.example ?all'],
        ['V=SPF1 include:spf.lattice.example'],
      ]) {
        expect(spfValueMatches(published, SPF.value), published.join(' | ')).to.equal(true);
      }
    });

    it('does not verify two v=spf1 records, a record without our include, or none', () => {
      for (const published of [
        ['v=spf1 include:spf.lattice.example ~all', 'v=spf1 include:_spf.google.com ~all'],
        ['v=spf1 include:_spf.google.com ~all'],
        ['v=spf1 include:spf.lattice.example.evil ~all'],
        ['v=spf1 -include:spf.lattice.example ~all'],
        ['v=spf10 include:spf.lattice.example ~all'],
        ['include:spf.lattice.example'],
        [],
      ]) {
        expect(spfValueMatches(published, SPF.value), published.join(' | ')).to.equal(false);
      }
    });
  });

  describe('return path MX', () => {
    it('verifies when an exchange is ours, case and a trailing dot aside', () => {
      expect(recordVerified(MX, ['MX.Lattice.Example.'])).to.equal(true);
      expect(recordVerified(MX, ['backup.example.org', 'mx.lattice.example'])).to.equal(true);
    });

    it('does not verify another exchange or none', () => {
      expect(recordVerified(MX, ['mx.lattice.example.org'])).to.equal(false);
      expect(recordVerified(MX, ['mx.example.org'])).to.equal(false);
      expect(recordVerified(MX, [])).to.equal(false);
    });
  });
});
