// Verification through node's resolver against a real DNS server on 127.0.0.1: what a domain
// owner may publish, and how DNS may fail, each leading to verified or pending, never an error.
import { createLogger } from '@lattice/core';
import { expect } from 'chai';
import { startTestDnsServer, type TestDnsServer } from '../testing/test-dns-server.ts';
import { generateDkimKeyPair } from './dkim-key.ts';
import { createNodeDnsLookup } from './dns-lookup.node.ts';
import { type DomainRecord, domainRecords } from './domain-records.ts';
import { verifyDomainRecords } from './domain-verification.ts';

const SETTINGS = { returnPathMx: 'mx.lattice.example', spfInclude: 'spf.lattice.example' };
const logger = createLogger({ name: 't', level: 'silent' });

describe('domain verification (real DNS server)', function () {
  this.timeout(30_000);
  let dns: TestDnsServer;
  let records: DomainRecord[];

  before(async () => {
    dns = await startTestDnsServer();
    const { publicKeyBase64 } = await generateDkimKeyPair();
    records = domainRecords({ name: 'example.org', selector: 'l20261124', publicKeyBase64 }, SETTINGS);
  });
  after(() => dns.close());
  beforeEach(() => {
    dns.remove();
    dns.mode = 'answer';
    dns.queries.splice(0);
  });

  const lookup = (timeoutMs = 2000) =>
    createNodeDnsLookup({ servers: [dns.address], timeoutMs, tries: 1 }, { logger });
  const publishAll = () => {
    for (const r of records) {
      if (r.type === 'MX') dns.mx(r.name, r.value, r.priority);
      else dns.txt(r.name, r.value);
    }
  };
  const statuses = (checked: DomainRecord[]) => checked.map((r) => `${r.type} ${r.name} ${r.status}`);
  const [DKIM, MX, SPF] = [
    'TXT l20261124._domainkey.example.org',
    'MX send.example.org',
    'TXT send.example.org',
  ];

  it('verifies a domain whose three records are published (the DKIM value split into 255-octet strings)', async () => {
    publishAll();
    dns.txt('l20261124._domainkey.example.org', 'v=DKIM1; k=rsa; p=AAAA');
    const result = await verifyDomainRecords(records, lookup());
    expect(statuses(result.records)).to.deep.equal([`${DKIM} verified`, `${MX} verified`, `${SPF} verified`]);
    expect(result.verified).to.equal(true);
    // One query per name and type, all at once.
    expect([...dns.queries].sort()).to.deep.equal([
      'MX send.example.org',
      'TXT l20261124._domainkey.example.org',
      'TXT send.example.org',
    ]);
  });

  it('leaves the DKIM record pending when it is missing (NXDOMAIN) and the others verified', async () => {
    dns.mx('send.example.org', 'mx.lattice.example.');
    dns.txt('send.example.org', 'v=spf1 include:spf.lattice.example ~all');
    const result = await verifyDomainRecords(records, lookup());
    expect(statuses(result.records)).to.deep.equal([`${DKIM} pending`, `${MX} verified`, `${SPF} verified`]);
    expect(result.verified).to.equal(false);
  });

  it('leaves SPF pending when the one v=spf1 record lacks our include, or when there are two', async () => {
    publishAll();
    dns.remove('send.example.org');
    dns.mx('send.example.org', 'mx.lattice.example');
    dns.txt('send.example.org', 'v=spf1 include:_spf.google.com ~all');
    expect(statuses((await verifyDomainRecords(records, lookup())).records)[2]).to.equal(`${SPF} pending`);
    dns.txt('send.example.org', 'v=spf1 include:spf.lattice.example ~all');
    const two = await verifyDomainRecords(records, lookup());
    expect(statuses(two.records)).to.deep.equal([`${DKIM} verified`, `${MX} verified`, `${SPF} pending`]);
    expect(two.verified).to.equal(false);
  });

  it('leaves the MX pending when it points elsewhere', async () => {
    publishAll();
    dns.remove('send.example.org');
    dns.txt('send.example.org', 'v=spf1 include:spf.lattice.example ~all');
    dns.mx('send.example.org', 'mx.other.example');
    const result = await verifyDomainRecords(records, lookup());
    expect(statuses(result.records)).to.deep.equal([`${DKIM} verified`, `${MX} pending`, `${SPF} verified`]);
  });

  it('reads SERVFAIL, a server that never answers and one that is not there as records not found', async () => {
    publishAll();
    dns.mode = 'servfail';
    const servfail = await verifyDomainRecords(records, lookup());
    expect(servfail.records.map((r) => r.status)).to.deep.equal(['pending', 'pending', 'pending']);
    dns.mode = 'silent';
    const silent = await verifyDomainRecords(records, lookup(200));
    expect(silent.records.map((r) => r.status)).to.deep.equal(['pending', 'pending', 'pending']);
    expect(silent.verified).to.equal(false);
    const closed = await startTestDnsServer();
    await closed.close();
    const absent = createNodeDnsLookup({ servers: [closed.address], timeoutMs: 200, tries: 1 }, { logger });
    expect((await verifyDomainRecords(records, absent)).verified).to.equal(false);
  });

  it('refuses a DNS server setting that is no address at creation', () => {
    expect(() => createNodeDnsLookup({ servers: ['not an address'] }, { logger })).to.throw();
  });
});
