// The audit log through the management API, against real PostgreSQL and a real DNS server: one
// test per kind of change (what the entry says: who, the operation, the target, the request id,
// the field names); failed changes write nothing; a fault between the change and its entry rolls
// both back; entries never hold a secret.
import { testConfig, uniqueName } from '@lattice/core/testing';
import { REQUEST_ID_HEADER } from '@lattice/http';
import { startTestDnsServer, type TestDnsServer } from '@lattice/mail/testing';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import type { auditEntryView } from './organization-views.ts';

type Entry = ReturnType<typeof auditEntryView>;
interface Answer {
  status: number;
  json: Record<string, unknown> & { id?: string };
  text: string;
  requestId: string | null;
}

describe('audit log (management API, real PostgreSQL)', function () {
  this.timeout(60_000);
  let t: TestManagement;
  let dns: TestDnsServer;
  const { secretKeys } = testConfig();

  before(async () => {
    dns = await startTestDnsServer();
    t = await startTestManagement({
      config: { secretKeys },
      settings: {
        mail: {
          dnsServers: [dns.address],
          returnPathMx: 'mx.lattice.test',
          spfInclude: 'spf.lattice.test',
          dnsTimeoutMs: 300,
        },
      },
    });
  });
  after(async () => {
    await t?.close();
    await dns?.close();
  });

  async function call(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${t.server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      text,
      json: text === '' ? {} : JSON.parse(text),
      requestId: res.headers.get(REQUEST_ID_HEADER),
    };
  }

  async function product() {
    const p = await t.newProduct('audit');
    const [owner] = await t.db('members').where({ product_id: p.product_id, role: 'owner' });
    const [token] = await t.db('member_tokens').where({ member_id: owner.id });
    return {
      productId: p.product_id,
      token: p.owner_token,
      memberId: owner.id as string,
      tokenId: token.id as string,
    };
  }

  const entries = async (token: string, query = '') => {
    const r = await call('GET', `/organization/audit-log${query}`, token);
    expect(r.status, r.text).to.equal(200);
    return r.json as unknown as { data: Entry[]; next_cursor: string | null };
  };

  /** Runs a change and checks the newest entries are exactly `expected`, newest first. */
  async function expectAudited(
    p: Awaited<ReturnType<typeof product>>,
    change: () => Promise<Answer>,
    expected: (
      answer: Answer,
    ) => Array<{ operation: string; target: { type: string; id: string | null }; changes: string[] }>,
  ): Promise<Answer> {
    const before = (await entries(p.token)).data.length;
    const answer = await change();
    expect(answer.status, answer.text).to.be.within(200, 299);
    const want = expected(answer);
    const after = (await entries(p.token)).data;
    expect(after.length - before).to.equal(want.length);
    for (const [i, w] of want.entries()) {
      const e = after[i]!;
      expect({ operation: e.operation, target: e.target, changes: e.changes }).to.deep.equal(w);
      expect(e.actor).to.deep.equal({
        credential_kind: 'member_token',
        member_id: p.memberId,
        credential_id: p.tokenId,
      });
      expect(e.request_id).to.equal(answer.requestId);
      expect(Date.now() - Date.parse(e.at)).to.be.within(0, 60_000);
    }
    return answer;
  }

  it('public keys: create, re-scope, revoke, import (one entry per key added)', async () => {
    const p = await product();
    const created = await expectAudited(
      p,
      () =>
        call('POST', '/organization/public-keys', p.token, {
          name: 'pk',
          scope: { kind: 'toolkit', toolkit: 'mail' },
        }),
      (a) => [
        {
          operation: 'organization_public-keys_create',
          target: { type: 'public_key', id: a.json.id! },
          changes: ['environment', 'name', 'scope'],
        },
      ],
    );
    const id = created.json.id!;
    await expectAudited(
      p,
      () =>
        call('PUT', `/organization/public-keys/${id}/scope`, p.token, {
          scope: { kind: 'toolkit', toolkit: 'realtime' },
        }),
      () => [
        {
          operation: 'organization_public-keys_update-scope',
          target: { type: 'public_key', id },
          changes: ['scope'],
        },
      ],
    );
    await expectAudited(
      p,
      () => call('POST', `/organization/public-keys/${id}/revoke`, p.token),
      () => [
        {
          operation: 'organization_public-keys_revoke',
          target: { type: 'public_key', id },
          changes: ['status'],
        },
      ],
    );
    await call('POST', '/realtime/api-keys', p.token, { name: 'one' });
    await call('POST', '/realtime/api-keys', p.token, { name: 'two' });
    await expectAudited(
      p,
      () => call('POST', '/organization/public-keys/import', p.token, { toolkit: 'realtime' }),
      // Written in the answer's order, so read back newest first in reverse.
      (a) =>
        (a.json.data as Array<{ id: string }>)
          .map((k) => ({
            operation: 'organization_public-keys_import',
            target: { type: 'public_key', id: k.id },
            changes: ['imported_from'],
          }))
          .reverse(),
    );
    // Nothing left to import: nothing changed, nothing written.
    await expectAudited(
      p,
      () => call('POST', '/organization/public-keys/import', p.token, { toolkit: 'realtime' }),
      () => [],
    );
  });

  it('members and member tokens: create, re-role, remove; mint, revoke', async () => {
    const p = await product();
    const added = await expectAudited(
      p,
      () => call('POST', '/organization/members', p.token, { name: 'Ada', role: 'member' }),
      (a) => [
        {
          operation: 'organization_members_create',
          target: { type: 'member', id: (a.json.member as { id: string }).id },
          changes: ['name', 'role'],
        },
      ],
    );
    const memberId = (added.json.member as { id: string }).id;
    await expectAudited(
      p,
      () => call('PUT', `/organization/members/${memberId}/role`, p.token, { role: 'admin' }),
      () => [
        {
          operation: 'organization_members_update-role',
          target: { type: 'member', id: memberId },
          changes: ['role'],
        },
      ],
    );
    await expectAudited(
      p,
      () => call('DELETE', `/organization/members/${memberId}`, p.token),
      () => [
        { operation: 'organization_members_remove', target: { type: 'member', id: memberId }, changes: [] },
      ],
    );
    const minted = await expectAudited(
      p,
      () => call('POST', '/organization/member-tokens', p.token, { name: 'laptop' }),
      (a) => [
        {
          operation: 'organization_member-tokens_create',
          target: { type: 'member_token', id: a.json.id! },
          changes: ['name'],
        },
      ],
    );
    await expectAudited(
      p,
      () => call('POST', `/organization/member-tokens/${minted.json.id}/revoke`, p.token),
      () => [
        {
          operation: 'organization_member-tokens_revoke',
          target: { type: 'member_token', id: minted.json.id! },
          changes: ['status'],
        },
      ],
    );
  });

  it('mail and realtime area keys: create and delete', async () => {
    const p = await product();
    for (const [area, type, body] of [
      ['mail', 'mail_api_key', { name: 'mk', scope: 'full_access' }],
      ['realtime', 'realtime_api_key', { name: 'rk' }],
    ] as const) {
      const made = await expectAudited(
        p,
        () => call('POST', `/${area}/api-keys`, p.token, body),
        (a) => [
          {
            operation: `${area}_apikey_create`,
            target: { type, id: a.json.id! },
            changes: Object.keys(body).sort(),
          },
        ],
      );
      await expectAudited(
        p,
        () => call('DELETE', `/${area}/api-keys/${made.json.id}`, p.token),
        () => [{ operation: `${area}_apikey_delete`, target: { type, id: made.json.id! }, changes: [] }],
      );
    }
  });

  it('webhook endpoints: create, update, delete', async () => {
    const p = await product();
    const made = await expectAudited(
      p,
      () =>
        call('POST', '/mail/webhooks', p.token, {
          url: 'https://hooks.example.com/a',
          events: ['email.bounced'],
        }),
      (a) => [
        {
          operation: 'mail_webhook_create',
          target: { type: 'webhook_endpoint', id: a.json.id! },
          changes: ['enabled', 'events', 'url'],
        },
      ],
    );
    const id = made.json.id!;
    await expectAudited(
      p,
      () => call('PATCH', `/mail/webhooks/${id}`, p.token, { enabled: false, description: 'paused' }),
      () => [
        {
          operation: 'mail_webhook_update',
          target: { type: 'webhook_endpoint', id },
          changes: ['description', 'enabled'],
        },
      ],
    );
    await expectAudited(
      p,
      () => call('DELETE', `/mail/webhooks/${id}`, p.token),
      () => [{ operation: 'mail_webhook_delete', target: { type: 'webhook_endpoint', id }, changes: [] }],
    );
  });

  it('mail domains: create, update, verify, delete', async () => {
    const p = await product();
    const made = await expectAudited(
      p,
      () => call('POST', '/mail/domains', p.token, { name: `${uniqueName('aud')}.example.test` }),
      (a) => [
        {
          operation: 'mail_domain_create',
          target: { type: 'mail_domain', id: a.json.id! },
          changes: ['click_tracking', 'name', 'open_tracking'],
        },
      ],
    );
    const id = made.json.id!;
    await expectAudited(
      p,
      () => call('PATCH', `/mail/domains/${id}`, p.token, { open_tracking: true }),
      () => [
        { operation: 'mail_domain_update', target: { type: 'mail_domain', id }, changes: ['open_tracking'] },
      ],
    );
    await expectAudited(
      p,
      () => call('POST', `/mail/domains/${id}/verify`, p.token),
      () => [{ operation: 'mail_domain_verify', target: { type: 'mail_domain', id }, changes: ['status'] }],
    );
    await expectAudited(
      p,
      () => call('DELETE', `/mail/domains/${id}`, p.token),
      () => [{ operation: 'mail_domain_delete', target: { type: 'mail_domain', id }, changes: [] }],
    );
  });

  it('namespaces: register or replace, delete', async () => {
    const p = await product();
    await expectAudited(
      p,
      () => call('PUT', '/realtime/namespaces/chat', p.token, { presence: true }),
      () => [
        {
          operation: 'realtime_namespace_put',
          target: { type: 'realtime_namespace', id: 'chat' },
          changes: ['archive_days', 'client_events', 'history_window_seconds', 'presence'],
        },
      ],
    );
    await expectAudited(
      p,
      () => call('DELETE', '/realtime/namespaces/chat', p.token),
      () => [
        {
          operation: 'realtime_namespace_delete',
          target: { type: 'realtime_namespace', id: 'chat' },
          changes: [],
        },
      ],
    );
  });

  it('suppressions added or removed by hand (an address listed already adds nothing)', async () => {
    const p = await product();
    await expectAudited(
      p,
      () => call('POST', '/mail/suppressions', p.token, { address: 'Ann@Example.org' }),
      () => [
        {
          operation: 'mail_suppression_create',
          target: { type: 'suppression', id: 'ann@example.org' },
          changes: ['address', 'reason'],
        },
      ],
    );
    await expectAudited(
      p,
      () => call('POST', '/mail/suppressions', p.token, { address: 'ann@example.org' }),
      () => [],
    );
    await expectAudited(
      p,
      () => call('DELETE', '/mail/suppressions/ann@example.org', p.token),
      () => [
        {
          operation: 'mail_suppression_delete',
          target: { type: 'suppression', id: 'ann@example.org' },
          changes: [],
        },
      ],
    );
  });

  it('names an area key as the actor when one makes the change', async () => {
    const p = await product();
    const key = await call('POST', '/realtime/api-keys', p.token, { name: 'ops' });
    const put = await call('PUT', '/realtime/namespaces/feed', key.json.key as string, {});
    expect(put.status).to.equal(201);
    const [newest] = (await entries(p.token)).data;
    expect(newest?.actor).to.deep.equal({
      credential_kind: 'realtime_key',
      member_id: null,
      credential_id: key.json.id,
    });
    expect(newest?.operation).to.equal('realtime_namespace_put');
  });

  it('failed changes write nothing: validation errors, 403, 404, 409', async () => {
    const p = await product();
    const member = await t.newMember(p.productId, 'member');
    const count = async () =>
      Number((await t.db('audit_log').where({ product_id: p.productId }).count({ n: '*' }))[0]!.n);
    const before = await count();
    const failures: Array<[string, string, string, unknown, number]> = [
      [
        'POST',
        '/organization/public-keys',
        p.token,
        { name: '', scope: { kind: 'toolkit', toolkit: 'mail' } },
        400,
      ],
      [
        'POST',
        '/organization/public-keys',
        member.token,
        { name: 'x', scope: { kind: 'toolkit', toolkit: 'mail' } },
        403,
      ],
      ['POST', '/organization/members', member.token, { name: 'x', role: 'member' }, 403],
      ['PUT', `/organization/members/${p.memberId}/role`, p.token, { role: 'member' }, 409],
      ['DELETE', `/organization/members/${p.memberId}`, p.token, undefined, 409],
      ['POST', `/organization/public-keys/${crypto.randomUUID()}/revoke`, p.token, undefined, 404],
      ['POST', '/mail/webhooks', p.token, { url: 'http://127.0.0.1/x', events: ['email.bounced'] }, 400],
      ['DELETE', '/realtime/namespaces/none', p.token, undefined, 404],
      ['POST', '/mail/suppressions', p.token, { address: 'Ann <ann@example.org>' }, 400],
    ];
    for (const [method, path, token, body, status] of failures) {
      const r = await call(method, path, token, body);
      expect(r.status, `${method} ${path}: ${r.text}`).to.equal(status);
    }
    expect(await count()).to.equal(before);
  });

  it('a fault between the change and its entry rolls both back; the change then commits with its entry', async () => {
    const p = await product();
    // A real fault, raised by PostgreSQL inside the transaction when the entry is written.
    const fn = `audit_fault_${p.productId.replaceAll('-', '')}`;
    await t.db.raw(`create function ${fn}() returns trigger language plpgsql as $$
      begin
        if new.product_id = '${p.productId}' then raise exception 'injected audit fault'; end if;
        return new;
      end $$`);
    await t.db.raw(`create trigger ${fn} before insert on audit_log for each row execute function ${fn}()`);
    const keys = () => t.db('public_keys').where({ product_id: p.productId });
    const entriesOf = () => t.db('audit_log').where({ product_id: p.productId });
    try {
      const before = (await entriesOf()).length;
      const failed = await call('POST', '/organization/public-keys', p.token, {
        name: 'faulty',
        scope: { kind: 'toolkit', toolkit: 'mail' },
      });
      expect(failed.status).to.be.at.least(500);
      expect(failed.text).to.not.include('injected');
      expect(await keys(), 'no change without its entry').to.deep.equal([]);
      const removal = await call('DELETE', '/realtime/namespaces/none', p.token);
      expect(removal.status).to.equal(404);
      const put = await call('PUT', '/realtime/namespaces/kept', p.token, {});
      expect(put.status).to.be.at.least(500);
      expect(await t.db('realtime_namespaces').where({ product_id: p.productId })).to.deep.equal([]);
      expect((await entriesOf()).length).to.equal(before);
    } finally {
      await t.db.raw(`drop trigger ${fn} on audit_log`);
      await t.db.raw(`drop function ${fn}()`);
    }
    const ok = await call('POST', '/organization/public-keys', p.token, {
      name: 'fine',
      scope: { kind: 'toolkit', toolkit: 'mail' },
    });
    expect(ok.status).to.equal(201);
    expect((await keys()).map((k) => k.name)).to.deep.equal(['fine']);
    const [newest] = (await entries(p.token)).data;
    expect(newest?.target.id).to.equal(ok.json.id);
  });

  it('holds no secret: no key, token or webhook secret appears in any entry', async () => {
    const p = await product();
    const secrets: string[] = [p.token];
    const pk = await call('POST', '/organization/public-keys', p.token, {
      name: 'pk',
      scope: { kind: 'toolkit', toolkit: 'mail' },
    });
    secrets.push(pk.json.key as string);
    const member = await call('POST', '/organization/members', p.token, { name: 'm', role: 'member' });
    secrets.push((member.json.token as { token: string }).token);
    const hook = await call('POST', '/mail/webhooks', p.token, {
      url: 'https://hooks.example.com/s',
      events: ['email.bounced'],
    });
    secrets.push(hook.json.secret as string);
    const rows = await t.db('audit_log').where({ product_id: p.productId });
    expect(rows.length).to.be.at.least(4);
    const text = JSON.stringify(rows);
    for (const s of secrets) {
      expect(s).to.be.a('string').with.length.above(20);
      expect(text).to.not.include(s.slice(4, 20));
    }
  });

  it('is for owners and admins, newest first, paged', async () => {
    const p = await product();
    const admin = await t.newMember(p.productId, 'admin');
    const member = await t.newMember(p.productId, 'member');
    for (const name of ['a', 'b', 'c']) await call('PUT', `/realtime/namespaces/${name}`, p.token, {});
    const denied = await call('GET', '/organization/audit-log', member.token);
    expect([denied.status, (denied.json.error as { code: string }).code]).to.deep.equal([403, 'forbidden']);
    const all = await entries(admin.token);
    expect(all.data.slice(0, 3).map((e) => e.target.id)).to.deep.equal(['c', 'b', 'a']);
    const first = await entries(p.token, '?limit=2');
    expect(first.data.map((e) => e.id)).to.deep.equal(all.data.slice(0, 2).map((e) => e.id));
    const rest = await entries(p.token, `?limit=100&cursor=${first.next_cursor}`);
    expect(rest.data.map((e) => e.id)).to.deep.equal(all.data.slice(2).map((e) => e.id));
    expect(rest.next_cursor).to.equal(null);
    // Another product's log is not reachable.
    const other = await product();
    expect((await entries(other.token)).data.map((e) => e.target.id)).to.not.include('c');
  });
});
