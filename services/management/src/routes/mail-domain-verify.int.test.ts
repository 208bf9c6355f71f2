// mail_domain_verify against real PostgreSQL and a real DNS server on 127.0.0.1: verified by
// publishing exactly the records the answer lists, pending again when they go, pending (never an
// error) when what is published is not ours or DNS fails.
import { uniqueName } from '@lattice/core/testing';
import { startTestDnsServer, type TestDnsServer } from '@lattice/mail/testing';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import type { mailDomainView } from './mail-domain-routes.ts';

type DomainJson = ReturnType<typeof mailDomainView>;
type RecordJson = DomainJson['records'][number];

const DOMAINS = '/mail/domains';
const MX = 'mx.lattice.test';
const SPF = 'spf.lattice.test';

describe('mail domain verification (management API, real PostgreSQL and DNS)', function () {
  this.timeout(60_000);
  let t: TestManagement;
  let dns: TestDnsServer;

  before(async () => {
    dns = await startTestDnsServer();
    t = await startTestManagement({
      settings: { mail: { dnsServers: [dns.address], returnPathMx: MX, spfInclude: SPF, dnsTimeoutMs: 300 } },
    });
  });
  after(async () => {
    await t?.close();
    await dns?.close();
  });

  const domainName = (label: string) => `${uniqueName(label)}.example.test`;
  const create = (token: string, body: unknown) => t.call<DomainJson>('POST', DOMAINS, token, body);
  const verify = (token: string, id: string) => t.call<DomainJson>('POST', `${DOMAINS}/${id}/verify`, token);
  const publish = (records: readonly RecordJson[]) => {
    for (const r of records) {
      if (r.type === 'MX') dns.mx(r.name, r.value, r.priority);
      else dns.txt(r.name, r.value);
    }
  };
  const statuses = (d: DomainJson) => d.records.map((r) => `${r.type} ${r.status}`);

  it('verifies a domain once its records are published, and makes it pending again when they go', async () => {
    const p = await t.newProduct('dom-verify');
    const d = (await create(p.owner_token, { name: domainName('v') })).json;
    const before = await verify(p.owner_token, d.id);
    expect(before.status).to.equal(200);
    expect(before.json).to.include({ status: 'pending', verified_at: null });
    expect(statuses(before.json)).to.deep.equal(['TXT pending', 'MX pending', 'TXT pending']);

    publish(d.records);
    const verified = await verify(p.owner_token, d.id);
    expect(verified.status).to.equal(200);
    expect(verified.json.status).to.equal('verified');
    expect(verified.json.verified_at).to.be.a('string');
    expect(statuses(verified.json)).to.deep.equal(['TXT verified', 'MX verified', 'TXT verified']);
    expect({ ...verified.json, records: verified.json.records.map(({ status, ...r }) => r) }).to.deep.equal({
      ...d,
      status: 'verified',
      verified_at: verified.json.verified_at,
      records: d.records.map(({ status, ...r }) => r),
    });
    expect((await t.call<DomainJson>('GET', `${DOMAINS}/${d.id}`, p.owner_token)).json).to.deep.equal(
      verified.json,
    );
    // Verified again: still verified since the first time.
    expect((await verify(p.owner_token, d.id)).json.verified_at).to.equal(verified.json.verified_at);

    dns.remove(d.records[0]!.name);
    const lost = await verify(p.owner_token, d.id);
    expect(lost.status).to.equal(200);
    expect(lost.json).to.include({ status: 'pending', verified_at: null });
    expect(statuses(lost.json)).to.deep.equal(['TXT pending', 'MX verified', 'TXT verified']);
    const shown = (await t.call<DomainJson>('GET', `${DOMAINS}/${d.id}`, p.owner_token)).json;
    expect(shown.status).to.equal('pending');
  });

  it('leaves a domain pending when its SPF lacks our include, has two v=spf1 records, or the MX points elsewhere', async () => {
    const p = await t.newProduct('dom-spf');
    const d = (await create(p.owner_token, { name: domainName('s') })).json;
    const [dkim, mx, spf] = d.records as [RecordJson, RecordJson, RecordJson];
    publish([dkim, mx]);
    dns.txt(spf.name, 'v=spf1 include:_spf.example.net ~all');
    const noInclude = await verify(p.owner_token, d.id);
    expect(statuses(noInclude.json)).to.deep.equal(['TXT verified', 'MX verified', 'TXT pending']);
    expect(noInclude.json.status).to.equal('pending');

    dns.txt(spf.name, spf.value);
    const two = await verify(p.owner_token, d.id);
    expect(statuses(two.json)).to.deep.equal(['TXT verified', 'MX verified', 'TXT pending']);

    dns.remove(spf.name);
    dns.txt(spf.name, `v=spf1 a mx include:${SPF} -all`);
    dns.mx(mx.name, 'mx.elsewhere.example', 10);
    const wrongMx = await verify(p.owner_token, d.id);
    expect(statuses(wrongMx.json)).to.deep.equal(['TXT verified', 'MX pending', 'TXT verified']);
    expect(wrongMx.json.status).to.equal('pending');

    dns.remove(mx.name);
    dns.txt(spf.name, `v=spf1 a mx include:${SPF} -all`);
    dns.mx(mx.name, `${MX}.`, 20);
    expect((await verify(p.owner_token, d.id)).json.status).to.equal('verified');
  });

  it('answers 200 pending, not an error, when DNS fails or does not answer', async () => {
    const p = await t.newProduct('dom-dnsfail');
    const d = (await create(p.owner_token, { name: domainName('x') })).json;
    publish(d.records);
    try {
      for (const mode of ['servfail', 'silent'] as const) {
        dns.mode = mode;
        const r = await verify(p.owner_token, d.id);
        expect(r.status, mode).to.equal(200);
        expect(r.json.status).to.equal('pending');
        expect(statuses(r.json)).to.deep.equal(['TXT pending', 'MX pending', 'TXT pending']);
      }
    } finally {
      dns.mode = 'answer';
    }
    expect((await verify(p.owner_token, d.id)).json.status).to.equal('verified');
  });
});
