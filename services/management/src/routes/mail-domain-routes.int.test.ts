// Sending domains through the management API, against real PostgreSQL: created pending with
// their DKIM key and records, read, listed, switched, reached by the right credentials only, and
// guarded against unlocking keys (verification: mail-domain-verify.int.test.ts).
import type { ErrorBody } from '@lattice/core';
import { uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import type { mailDomainView } from './mail-domain-routes.ts';

type DomainJson = ReturnType<typeof mailDomainView>;
interface ListJson {
  data: DomainJson[];
  next_cursor: string | null;
}

const DOMAINS = '/mail/domains';
const MX = 'mx.lattice.test';
const SPF = 'spf.lattice.test';

describe('mail domains (management API, real PostgreSQL)', function () {
  this.timeout(60_000);
  let t: TestManagement;

  before(async () => {
    t = await startTestManagement({
      settings: { mail: { dnsServers: [], returnPathMx: MX, spfInclude: SPF } },
    });
  });
  after(() => t?.close());

  const domainName = (label: string) => `${uniqueName(label)}.example.test`;
  const create = (token: string, body: unknown) => t.call<DomainJson>('POST', DOMAINS, token, body);

  describe('create, read, list, update', () => {
    it('creates a pending domain with its DKIM, return-path MX and SPF records, readable and listed', async () => {
      const p = await t.newProduct('dom');
      const name = domainName('c');
      const r = await create(p.owner_token, { name: `  ${name.toUpperCase()}. `, open_tracking: true });
      expect(r.status, r.text).to.equal(201);
      const d = r.json;
      expect(d).to.deep.equal({
        id: d.id,
        name,
        status: 'pending',
        open_tracking: true,
        click_tracking: false,
        records: d.records,
        created_at: d.created_at,
        verified_at: null,
      });
      const [dkim, mx, spf] = d.records;
      expect(dkim).to.deep.equal({
        type: 'TXT',
        name: `${dkim!.name.split('.')[0]}._domainkey.${name}`,
        value: dkim!.value,
        status: 'pending',
      });
      expect(dkim!.name).to.match(/^l\d{8}\._domainkey\./);
      expect(dkim!.value).to.match(
        /^v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA[A-Za-z0-9+/]+=*$/,
      );
      expect(mx).to.deep.equal({
        type: 'MX',
        name: `send.${name}`,
        value: MX,
        priority: 10,
        status: 'pending',
      });
      expect(spf).to.deep.equal({
        type: 'TXT',
        name: `send.${name}`,
        value: `v=spf1 include:${SPF} ~all`,
        status: 'pending',
      });

      expect((await t.call<DomainJson>('GET', `${DOMAINS}/${d.id}`, p.owner_token)).json).to.deep.equal(d);
      expect((await t.call<ListJson>('GET', DOMAINS, p.owner_token)).json).to.deep.equal({
        data: [d],
        next_cursor: null,
      });
      const row = await t.db('mail_domains').where({ id: d.id }).first();
      expect(JSON.stringify(row)).to.not.include('PRIVATE KEY');
    });

    it('refuses a name that is no domain with 400 naming body.name, and a second domain of one name with 409', async () => {
      const p = await t.newProduct('dom-bad');
      for (const name of [
        'localhost',
        '10.1.2.3',
        'a..example.test',
        'ann@example.test',
        'under_score.example.test',
        '',
      ]) {
        const r = await t.call('POST', DOMAINS, p.owner_token, { name });
        expect(r.status, name).to.equal(400);
        expect(r.json.error.code).to.equal('validation_error');
        expect(r.json.error.fields!.map((f) => f.path)).to.deep.equal(['body.name']);
        if (name !== '') expect(r.json.error.fields![0]!.message).to.match(/^must be a domain name such as/);
      }
      for (const body of [
        {},
        { name: 'x.example.test', open_tracking: 'yes' },
        { name: 'x.example.test', dkim: 1 },
      ]) {
        const r = await t.call('POST', DOMAINS, p.owner_token, body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.json.error.code).to.equal('validation_error');
      }
      const name = domainName('dup');
      expect((await create(p.owner_token, { name })).status).to.equal(201);
      const dup = await t.call('POST', DOMAINS, p.owner_token, { name: name.toUpperCase() });
      expect(dup.status).to.equal(409);
      expect(dup.json).to.deep.equal({
        error: {
          code: 'domain_exists',
          message: `"${name}" is already a domain of this product`,
          step: 'domains',
        },
      });
      const other = await t.newProduct('dom-other');
      expect((await create(other.owner_token, { name })).status).to.equal(201);
    });

    it('pages the list newest first with limits from 1 to 100', async () => {
      const p = await t.newProduct('dom-page');
      const names = [domainName('p1'), domainName('p2'), domainName('p3')];
      for (const name of names) expect((await create(p.owner_token, { name })).status).to.equal(201);
      const first = await t.call<ListJson>('GET', `${DOMAINS}?limit=2`, p.owner_token);
      expect(first.json.data.map((d) => d.name)).to.deep.equal([names[2], names[1]]);
      expect(first.json.next_cursor).to.equal(first.json.data[1]!.id);
      const rest = await t.call<ListJson>(
        'GET',
        `${DOMAINS}?limit=2&cursor=${first.json.next_cursor}`,
        p.owner_token,
      );
      expect(rest.json).to.deep.equal({ data: [rest.json.data[0]], next_cursor: null });
      expect(rest.json.data[0]!.name).to.equal(names[0]);
      expect((await t.call<ListJson>('GET', `${DOMAINS}?limit=1`, p.owner_token)).json.data).to.have.length(
        1,
      );
      expect((await t.call<ListJson>('GET', `${DOMAINS}?limit=100`, p.owner_token)).json.data).to.have.length(
        3,
      );
      for (const query of ['limit=0', 'limit=101', 'cursor=nope']) {
        const r = await t.call('GET', `${DOMAINS}?${query}`, p.owner_token);
        expect(r.status, query).to.equal(400);
        expect(r.json.error.code).to.equal('validation_error');
      }
    });

    it('switches tracking one at a time, and refuses an update that sets nothing', async () => {
      const p = await t.newProduct('dom-patch');
      const d = (await create(p.owner_token, { name: domainName('u') })).json;
      const patch = (body: unknown) => t.call<DomainJson>('PATCH', `${DOMAINS}/${d.id}`, p.owner_token, body);
      const clicks = await patch({ click_tracking: true });
      expect(clicks.status).to.equal(200);
      expect(clicks.json).to.include({ open_tracking: false, click_tracking: true });
      expect((await patch({ open_tracking: true, click_tracking: false })).json).to.include({
        open_tracking: true,
        click_tracking: false,
      });
      const empty = await patch({});
      expect(empty.status).to.equal(400);
      expect((empty.json as unknown as ErrorBody).error.fields).to.deep.equal([
        { path: 'body', message: 'must set open_tracking or click_tracking' },
      ]);
      expect((await patch({ open_tracking: null })).status).to.equal(400);
      expect((await t.call<DomainJson>('GET', `${DOMAINS}/${d.id}`, p.owner_token)).json).to.include({
        open_tracking: true,
        click_tracking: false,
      });
    });

    it('answers 404 for an unknown id, another product’s domain and an id that is no uuid, on every operation', async () => {
      const p = await t.newProduct('dom-404');
      const other = await t.newProduct('dom-404-other');
      const foreign = (await create(other.owner_token, { name: domainName('f') })).json.id;
      for (const id of [foreign, '7d1b3a5e-3f43-4c1e-9a59-3f0d5c4f8e21', 'not-a-uuid']) {
        for (const [method, path, body] of [
          ['GET', `${DOMAINS}/${id}`],
          ['PATCH', `${DOMAINS}/${id}`, { open_tracking: true }],
          ['POST', `${DOMAINS}/${id}/verify`],
          ['DELETE', `${DOMAINS}/${id}`],
        ] as const) {
          const r = await t.call(method, path, p.owner_token, body);
          expect(r.status, `${method} ${path}`).to.equal(404);
          expect(r.json.error).to.deep.equal({
            code: 'not_found',
            message: 'No mail domain with this id',
            step: 'domains',
          });
        }
      }
      expect((await t.call<DomainJson>('GET', `${DOMAINS}/${foreign}`, other.owner_token)).status).to.equal(
        200,
      );
    });

    it('is reached by member tokens and full_access mail keys, not by sending_access or realtime keys', async () => {
      const p = await t.newProduct('dom-keys');
      const member = await t.newMember(p.product_id, 'member');
      const key = async (path: string, body: unknown) =>
        (await t.call<{ key: string }>('POST', path, p.owner_token, body)).json.key;
      const full = await key('/mail/api-keys', { name: 'full', scope: 'full_access' });
      const sending = await key('/mail/api-keys', { name: 'send', scope: 'sending_access' });
      const rtk = await key('/realtime/api-keys', {});
      expect((await create(member.token, { name: domainName('m') })).status).to.equal(201);
      expect((await create(full, { name: domainName('k') })).status).to.equal(201);
      expect((await t.call<ListJson>('GET', DOMAINS, full)).json.data).to.have.length(2);
      for (const credential of [sending, rtk]) {
        for (const [method, body] of [['GET'], ['POST', { name: domainName('no') }]] as const) {
          const r = await t.call(method, DOMAINS, credential, body);
          expect(r.status).to.equal(401);
          expect(r.json.error.code).to.equal('restricted_api_key');
        }
      }
      expect((await t.call<ListJson>('GET', DOMAINS, p.owner_token)).json.data).to.have.length(2);
    });

    it('shows a domain added by bootstrap as verified, with its key made on first read', async () => {
      const name = domainName('boot');
      const p = await t.newProduct('dom-boot', { verifiedDomain: name });
      const list = await t.call<ListJson>('GET', DOMAINS, p.owner_token);
      const [d] = list.json.data;
      expect(d).to.include({ name, status: 'verified' });
      expect(d!.verified_at).to.equal(d!.created_at);
      expect(d!.records.map((r) => r.status)).to.deep.equal(['verified', 'verified', 'verified']);
      expect(d!.records[0]!.value).to.match(/^v=DKIM1; k=rsa; p=/);
      expect((await t.call<DomainJson>('GET', `${DOMAINS}/${d!.id}`, p.owner_token)).json).to.deep.equal(d);
    });
  });

  describe('delete', () => {
    it('refuses to delete a domain a mail key is locked to, and deletes it once the key is gone', async () => {
      const p = await t.newProduct('dom-del');
      const d = (await create(p.owner_token, { name: domainName('d') })).json;
      const key = await t.call<{ id: string; domain_id: string }>('POST', '/mail/api-keys', p.owner_token, {
        name: 'locked',
        scope: 'sending_access',
        domain_id: d.id,
      });
      expect(key.json.domain_id).to.equal(d.id);
      const refused = await t.call('DELETE', `${DOMAINS}/${d.id}`, p.owner_token);
      expect(refused.status).to.equal(409);
      expect(refused.json.error).to.deep.equal({
        code: 'domain_in_use',
        message: 'A mail API key is locked to this domain; delete that key first, then the domain',
        step: 'domains',
      });
      expect((await t.db('mail_api_keys').where({ id: key.json.id }).first()).domain_id).to.equal(d.id);

      expect((await t.call('DELETE', `/mail/api-keys/${key.json.id}`, p.owner_token)).status).to.equal(204);
      const deleted = await t.call('DELETE', `${DOMAINS}/${d.id}`, p.owner_token);
      expect(deleted.status).to.equal(204);
      expect(deleted.text).to.equal('');
      expect((await t.call('GET', `${DOMAINS}/${d.id}`, p.owner_token)).status).to.equal(404);
      expect((await t.call('DELETE', `${DOMAINS}/${d.id}`, p.owner_token)).status).to.equal(404);
      expect((await t.call<ListJson>('GET', DOMAINS, p.owner_token)).json.data).to.deep.equal([]);
    });
  });
});
