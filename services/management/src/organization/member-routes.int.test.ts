// Members and member tokens through the management API, against real PostgreSQL: every rule of
// docs/organization.md "Who may do what", each on both sides.
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import type { memberTokenView, memberView } from './organization-views.ts';

type Member = ReturnType<typeof memberView>;
type Token = ReturnType<typeof memberTokenView>;
interface Created {
  member: Member;
  token: Token & { token: string };
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
interface ErrorJson {
  error: { code: string; message: string; step?: string; fields?: Array<{ path: string; message: string }> };
}

describe('organization members and member tokens (management API, real PostgreSQL)', () => {
  let t: TestManagement;
  before(async () => {
    t = await startTestManagement();
  });
  after(() => t.close());

  /** A product with an owner, an admin and a member, each with a token. */
  async function team() {
    const p = await t.newProduct('org');
    const [ownerRow] = await t.db('members').where({ product_id: p.product_id, role: 'owner' });
    const admin = await t.newMember(p.product_id, 'admin');
    const member = await t.newMember(p.product_id, 'member');
    return {
      productId: p.product_id,
      owner: { memberId: ownerRow.id as string, token: p.owner_token },
      admin,
      member,
    };
  }

  const create = (token: string, body: unknown) =>
    t.call<Created & ErrorJson>('POST', '/organization/members', token, body);
  const setRole = (token: string, id: string, role: string) =>
    t.call<Member & ErrorJson>('PUT', `/organization/members/${id}/role`, token, { role });
  const remove = (token: string, id: string) =>
    t.call<ErrorJson>('DELETE', `/organization/members/${id}`, token);
  const whoAmI = (token: string) => t.call<ErrorJson>('GET', '/organization/product', token);

  describe('members', () => {
    it('an owner adds any role; the answer carries a working first token, shown once', async () => {
      const { owner } = await team();
      for (const role of ['owner', 'admin', 'member']) {
        const r = await create(owner.token, { name: `new ${role}`, role });
        expect(r.status, r.text).to.equal(201);
        expect(r.json.member).to.include({ name: `new ${role}`, role });
        expect(r.json.token).to.include({
          member_id: r.json.member.id,
          prefix: 'lmt_',
          status: 'active',
          last_used_at: null,
        });
        expect(r.json.token.token).to.match(/^lmt_[0-9a-f]{32}$/);
        expect(r.json.token.visible).to.equal(r.json.token.token.slice(4, 12));
        const me = await t.call<{ caller: unknown }>('GET', '/organization/product', r.json.token.token);
        expect(me.json.caller).to.deep.equal({
          credential_kind: 'member_token',
          role,
          member_id: r.json.member.id,
        });
        // Never again: not in the member's token list.
        const list = await t.call<Page<Token>>('GET', '/organization/member-tokens', r.json.token.token);
        expect(list.json.data.map((x) => x.id)).to.deep.equal([r.json.token.id]);
        expect(list.text).to.not.include(r.json.token.token.slice(4));
      }
    });

    it('an admin creates an admin and a member (201) but not an owner (403); a member creates nobody', async () => {
      const { admin, member } = await team();
      expect((await create(admin.token, { name: 'a2', role: 'admin' })).status).to.equal(201);
      expect((await create(admin.token, { name: 'm2', role: 'member' })).status).to.equal(201);
      const owner = await create(admin.token, { name: 'o2', role: 'owner' });
      expect(owner.status).to.equal(403);
      expect(owner.json.error.code).to.equal('forbidden');
      const byMember = await create(member.token, { name: 'm3', role: 'member' });
      expect(byMember.status).to.equal(403);
      expect(byMember.json.error.code).to.equal('forbidden');
    });

    it('lists members oldest first to any member, paged', async () => {
      const { owner, admin, member } = await team();
      const all = await t.call<Page<Member>>('GET', '/organization/members', member.token);
      expect(all.status).to.equal(200);
      expect(all.json.data.map((m) => m.id)).to.deep.equal([owner.memberId, admin.memberId, member.memberId]);
      const first = await t.call<Page<Member>>('GET', '/organization/members?limit=2', member.token);
      expect(first.json.data).to.have.length(2);
      expect(first.json.next_cursor).to.equal(admin.memberId);
      const second = await t.call<Page<Member>>(
        `GET`,
        `/organization/members?limit=2&cursor=${first.json.next_cursor}`,
        member.token,
      );
      expect(second.json).to.deep.equal({ data: [all.json.data[2]], next_cursor: null });
    });

    it('roles: an admin re-roles members and admins, never an owner, never to owner', async () => {
      const { owner, admin, member } = await team();
      const up = await setRole(admin.token, member.memberId, 'admin');
      expect([up.status, up.json.role]).to.deep.equal([200, 'admin']);
      expect(
        (await t.call<{ caller: { role: string } }>('GET', '/organization/product', member.token)).json.caller
          .role,
      ).to.equal('admin');
      expect((await setRole(admin.token, member.memberId, 'member')).status).to.equal(200);
      expect((await setRole(admin.token, member.memberId, 'owner')).status).to.equal(403);
      expect((await setRole(admin.token, owner.memberId, 'admin')).status).to.equal(403);
      expect((await setRole(member.token, member.memberId, 'admin')).status).to.equal(403);
      expect((await setRole(owner.token, member.memberId, 'owner')).status).to.equal(200);
    });

    it('an admin removing an owner: 403; removing a member: 204', async () => {
      const { owner, admin, member } = await team();
      const refused = await remove(admin.token, owner.memberId);
      expect([refused.status, refused.json.error.code]).to.deep.equal([403, 'forbidden']);
      expect((await whoAmI(owner.token)).status).to.equal(200);
      expect((await remove(admin.token, member.memberId)).status).to.equal(204);
      expect((await remove(member.token, admin.memberId)).status).to.equal(401);
    });

    it('the last owner removed or demoted: 409 last_owner; with a second owner, both work', async () => {
      const { owner } = await team();
      const demote = await setRole(owner.token, owner.memberId, 'admin');
      expect([demote.status, demote.json.error?.code]).to.deep.equal([409, 'last_owner']);
      const removal = await remove(owner.token, owner.memberId);
      expect([removal.status, removal.json.error?.code]).to.deep.equal([409, 'last_owner']);
      expect((await whoAmI(owner.token)).status, 'still an owner').to.equal(200);

      const second = await create(owner.token, { name: 'second owner', role: 'owner' });
      expect((await setRole(owner.token, owner.memberId, 'admin')).status).to.equal(200);
      // Now the second is the last owner.
      const last = await setRole(second.json.token.token, second.json.member.id, 'member');
      expect(last.status).to.equal(409);
      expect((await remove(second.json.token.token, owner.memberId)).status).to.equal(204);
    });

    it('two owners demoting each other at once: exactly one succeeds', async () => {
      const { owner } = await team();
      const second = await create(owner.token, { name: 'second owner', role: 'owner' });
      const answers = await Promise.all([
        setRole(owner.token, second.json.member.id, 'admin'),
        setRole(second.json.token.token, owner.memberId, 'admin'),
      ]);
      expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409]);
      const owners = await t
        .db('members')
        .where({ product_id: (await whoAmIProduct(owner.token)) ?? '', role: 'owner' })
        .whereNull('removed_at');
      expect(owners).to.have.length(1);
    });

    it('a removed member’s two tokens are both refused at once, on REST and /mcp', async () => {
      const { owner, member } = await team();
      const extra = await t.call<Token & { token: string }>(
        'POST',
        '/organization/member-tokens',
        member.token,
        { name: 'second' },
      );
      expect(extra.status).to.equal(201);
      for (const token of [member.token, extra.json.token])
        expect((await whoAmI(token)).status).to.equal(200);
      expect((await remove(owner.token, member.memberId)).status).to.equal(204);
      for (const token of [member.token, extra.json.token]) {
        const r = await whoAmI(token);
        expect([r.status, r.json.error.code]).to.deep.equal([401, 'invalid_token']);
        expect((await mcpList(token)).status).to.equal(401);
      }
      const listed = await t.call<Page<Member>>('GET', '/organization/members', owner.token);
      expect(listed.json.data.map((m) => m.id)).to.not.include(member.memberId);
      // Gone for every operation.
      expect((await setRole(owner.token, member.memberId, 'admin')).status).to.equal(404);
      expect((await remove(owner.token, member.memberId)).status).to.equal(404);
    });

    it('another product’s member ids answer 404, like unknown ones', async () => {
      const a = await team();
      const b = await team();
      expect((await setRole(a.owner.token, b.member.memberId, 'admin')).status).to.equal(404);
      expect((await remove(a.owner.token, b.member.memberId)).status).to.equal(404);
      expect(
        (await t.call('GET', `/organization/member-tokens?member_id=${b.member.memberId}`, a.owner.token))
          .status,
      ).to.equal(404);
      expect((await whoAmI(b.member.token)).status).to.equal(200);
    });
  });

  describe('member tokens', () => {
    const mint = (token: string, name: string) =>
      t.call<Token & { token: string } & ErrorJson>('POST', '/organization/member-tokens', token, { name });
    const revoke = (token: string, id: string) =>
      t.call<Token & ErrorJson>('POST', `/organization/member-tokens/${id}/revoke`, token);
    const tokensOf = (token: string, memberId?: string) =>
      t.call<Page<Token> & ErrorJson>(
        'GET',
        `/organization/member-tokens${memberId ? `?member_id=${memberId}` : ''}`,
        token,
      );

    it('a member mints tokens for itself only, with its own role', async () => {
      const { member } = await team();
      const r = await mint(member.token, 'ci');
      expect(r.status).to.equal(201);
      expect(r.json.member_id).to.equal(member.memberId);
      const me = await t.call<{ caller: { role: string; member_id: string } }>(
        'GET',
        '/organization/product',
        r.json.token,
      );
      expect(me.json.caller).to.include({ role: 'member', member_id: member.memberId });
      // The body names no member: a member_id is refused, not obeyed.
      const forOther = await t.call<ErrorJson>('POST', '/organization/member-tokens', member.token, {
        name: 'x',
        member_id: member.memberId,
      });
      expect(forOther.status).to.equal(400);
      expect(forOther.json.error.code).to.equal('validation_error');
    });

    it('a member revoking another’s token: 403; its own: 200, and that token is refused next', async () => {
      const { admin, member } = await team();
      const adminTokens = await tokensOf(admin.token);
      const refused = await revoke(member.token, adminTokens.json.data[0]!.id);
      expect([refused.status, refused.json.error.code]).to.deep.equal([403, 'forbidden']);
      expect((await whoAmI(admin.token)).status).to.equal(200);
      const own = await mint(member.token, 'temp');
      const done = await revoke(member.token, own.json.id);
      expect([done.status, done.json.status]).to.deep.equal([200, 'revoked']);
      expect((await whoAmI(own.json.token)).status).to.equal(401);
      expect((await whoAmI(member.token)).status, 'its other token still works').to.equal(200);
      expect((await revoke(member.token, own.json.id)).status, 'revoking again answers it').to.equal(200);
    });

    it('owners and admins list and revoke others’ tokens; an admin not an owner’s; a member nobody else’s', async () => {
      const { owner, admin, member } = await team();
      const memberTokens = await tokensOf(admin.token, member.memberId);
      expect(memberTokens.status).to.equal(200);
      expect(memberTokens.json.data.map((x) => x.member_id)).to.deep.equal([member.memberId]);
      expect((await tokensOf(admin.token, owner.memberId)).status).to.equal(403);
      expect((await tokensOf(member.token, admin.memberId)).status).to.equal(403);
      expect((await tokensOf(member.token, member.memberId)).status).to.equal(200);
      const ownerTokens = await tokensOf(owner.token, owner.memberId);
      expect((await revoke(admin.token, ownerTokens.json.data[0]!.id)).status).to.equal(403);
      expect((await revoke(admin.token, memberTokens.json.data[0]!.id)).status).to.equal(200);
      expect((await whoAmI(member.token)).status).to.equal(401);
      const adminTokens = await tokensOf(owner.token, admin.memberId);
      expect((await revoke(owner.token, adminTokens.json.data[0]!.id)).status).to.equal(200);
      expect((await whoAmI(admin.token)).status).to.equal(401);
    });

    it('another product’s token id answers 404', async () => {
      const a = await team();
      const b = await team();
      const bTokens = await tokensOf(b.owner.token);
      expect((await revoke(a.owner.token, bTokens.json.data[0]!.id)).status).to.equal(404);
      expect((await whoAmI(b.owner.token)).status).to.equal(200);
    });

    it('records last use, off the request path', async () => {
      const { member } = await team();
      expect((await whoAmI(member.token)).status).to.equal(200);
      let listed: Token | undefined;
      for (let i = 0; i < 200 && !listed?.last_used_at; i++) {
        listed = (await tokensOf(member.token)).json.data[0];
      }
      expect(listed?.last_used_at).to.be.a('string');
    });
  });

  describe('revocation is immediate', () => {
    /**
     * Requests with `token` run in four loops while it is revoked: every request sent after the
     * revocation's answer must be refused; requests sent before may go either way.
     */
    async function hammer(send: (token: string) => Promise<number>) {
      const { owner, member } = await team();
      const mine = await t.call<Page<Token>>('GET', '/organization/member-tokens', member.token);
      const tokenId = mine.json.data[0]!.id;
      let answered = false;
      let stop = false;
      const sent: Array<{ afterAnswer: boolean; status: number }> = [];
      const loop = async () => {
        while (!stop) {
          const afterAnswer = answered;
          const status = await send(member.token);
          sent.push({ afterAnswer, status });
          if (sent.filter((x) => x.afterAnswer).length >= 60) stop = true;
        }
      };
      const loops = [loop(), loop(), loop(), loop()];
      while (sent.filter((x) => x.status === 200).length < 20) await new Promise((r) => setImmediate(r));
      const revoked = await t.call<Token>(
        'POST',
        `/organization/member-tokens/${tokenId}/revoke`,
        owner.token,
      );
      expect(revoked.status).to.equal(200);
      answered = true;
      await Promise.all(loops);
      const after = sent.filter((x) => x.afterAnswer);
      expect(sent.filter((x) => !x.afterAnswer && x.status === 200).length).to.be.at.least(20);
      expect(after.length).to.be.at.least(60);
      expect(
        after.filter((x) => x.status !== 401),
        'answers after the revocation',
      ).to.deep.equal([]);
    }

    it('on REST: no request sent after the revoke’s answer succeeds', async () => {
      await hammer(async (token) => (await whoAmI(token)).status);
    });

    it('on /mcp: no tool call sent after the revoke’s answer succeeds', async () => {
      await hammer(async (token) => {
        const res = await fetch(`${t.server.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'organization_members_list', arguments: {} },
          }),
        });
        const text = await res.text();
        // A tool result that is an error (isError) would not be a success either.
        return res.status === 200 && text.includes('"isError":true') ? 500 : res.status;
      });
    });
  });

  describe('who reaches these operations', () => {
    it('an area key on any organization operation: 401 restricted_api_key', async () => {
      const { owner, member } = await team();
      const key = await t.call<{ key: string }>('POST', '/realtime/api-keys', owner.token, { name: 'rt' });
      const mailKey = await t.call<{ key: string }>('POST', '/mail/api-keys', owner.token, {
        name: 'mk',
        scope: 'full_access',
      });
      expect(mailKey.status, mailKey.text).to.equal(201);
      const calls: Array<[string, string, unknown?]> = [
        ['GET', '/organization/members'],
        ['POST', '/organization/members', { name: 'x', role: 'member' }],
        ['PUT', `/organization/members/${member.memberId}/role`, { role: 'admin' }],
        ['DELETE', `/organization/members/${member.memberId}`],
        ['POST', '/organization/member-tokens', { name: 'x' }],
        ['GET', '/organization/member-tokens'],
        ['POST', `/organization/member-tokens/${member.memberId}/revoke`],
        ['GET', '/organization/audit-log'],
      ];
      for (const areaKey of [key.json.key, mailKey.json.key]) {
        for (const [method, path, body] of calls) {
          const r = await t.call<ErrorJson>(method, path, areaKey, body);
          expect([r.status, r.json.error.code], `${method} ${path}`).to.deep.equal([
            401,
            'restricted_api_key',
          ]);
        }
      }
      expect((await whoAmI(member.token)).status).to.equal(200);
    });

    it('bad input on every new route: 400 naming the field, never a 5xx', async () => {
      const { owner, member } = await team();
      const cases: Array<[string, string, unknown, string]> = [
        ['POST', '/organization/members', { name: '', role: 'member' }, 'body.name'],
        ['POST', '/organization/members', { name: 'x', role: 'boss' }, 'body.role'],
        ['POST', '/organization/members', { name: 'x'.repeat(65), role: 'member' }, 'body.name'],
        ['POST', '/organization/members', { role: 'member' }, 'body.name'],
        ['POST', '/organization/members', { name: 'x', role: 'member', extra: 1 }, 'body.extra'],
        ['PUT', `/organization/members/${member.memberId}/role`, { role: 7 }, 'body.role'],
        ['PUT', '/organization/members/not-a-uuid/role', { role: 'admin' }, 'params.id'],
        ['DELETE', '/organization/members/not-a-uuid', undefined, 'params.id'],
        ['POST', '/organization/member-tokens', { name: '   ' }, 'body.name'],
        ['POST', '/organization/member-tokens', {}, 'body.name'],
        ['GET', '/organization/member-tokens?member_id=nope', undefined, 'query.member_id'],
        ['GET', '/organization/member-tokens?limit=0', undefined, 'query.limit'],
        ['POST', '/organization/member-tokens/nope/revoke', undefined, 'params.id'],
        ['GET', '/organization/members?limit=101', undefined, 'query.limit'],
        ['GET', '/organization/members?cursor=x', undefined, 'query.cursor'],
        ['GET', '/organization/audit-log?limit=abc', undefined, 'query.limit'],
        ['GET', '/organization/audit-log?cursor=1', undefined, 'query.cursor'],
      ];
      for (const [method, path, body, field] of cases) {
        const r = await t.call<ErrorJson>(method, path, owner.token, body);
        expect(r.status, `${method} ${path} ${JSON.stringify(body)}: ${r.text}`).to.equal(400);
        expect(r.json.error.code).to.equal('validation_error');
        expect(
          r.json.error.fields?.map((f) => f.path),
          `${method} ${path}`,
        ).to.include(field);
      }
      const broken = await fetch(`${t.server.url}/organization/members`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: '{"name": ',
      });
      expect(broken.status).to.equal(400);
      expect(((await broken.json()) as ErrorJson).error.code).to.equal('invalid_json');
    });
  });

  async function whoAmIProduct(token: string): Promise<string | undefined> {
    return (await t.call<{ id: string }>('GET', '/organization/product', token)).json.id;
  }

  function mcpList(token: string) {
    return fetch(`${t.server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  }
});
