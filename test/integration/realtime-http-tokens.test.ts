// Delegated tokens over HTTP (edge POST /tokens/issue, management POST /realtime/tokens) and the
// management API's namespace operations: narrowing by policy, the environment's key and gateway,
// expiry, 400/422; namespaces PUT (201 then 200), list pages, get, delete, for owner, member and
// rtk_ credentials, and 401 restricted_api_key for a mail key.

import { verifyRealtimeToken } from '@lattice/realtime';
import {
  createPostgresMemberRepository,
  createPostgresMemberTokenRepository,
  issueMemberToken,
} from '@lattice/store';
import { expect } from 'chai';
import {
  callers,
  createRealtimeHttpBase,
  edge,
  errorOf,
  mgmt,
  type Product,
  publicKey,
  putNamespace,
  type RealtimeHttpBase,
  type Stack,
} from './realtime-http/harness.ts';

interface TokenAnswer {
  token: string;
  gatewayUrl: string;
  expiresAt: string;
}

describe('realtime tokens and namespaces over HTTP', function () {
  this.timeout(120_000);
  let base: RealtimeHttpBase;
  let stack: Stack;
  let product: Product;

  before(async () => {
    base = await createRealtimeHttpBase('rt-tokens');
    stack = await base.startStack();
    product = await base.newProduct(stack.management);
    await putNamespace(stack, product, 'chat', {
      presence: true,
      client_events: false,
      history_window_seconds: 60,
    });
    await putNamespace(stack, product, 'feed', {
      presence: false,
      client_events: true,
      history_window_seconds: 0,
    });
  });
  after(async () => base?.close());

  async function claimsOf(answer: TokenAnswer, environment: 'production' | 'development') {
    const keys = stack.runtime.http.signingKeys;
    const head = JSON.parse(Buffer.from(answer.token.split('.')[0]!, 'base64url').toString()) as {
      kid: string;
    };
    const key = await keys.byKid(environment, head.kid);
    const verified = verifyRealtimeToken(answer.token, environment, () => key, Date.now());
    if (!('claims' in verified)) throw new Error(`token rejected: ${verified.rejected}`);
    return verified.claims;
  }

  it('issues narrowed tokens signed for the environment, with its gatewayUrl and expiresAt, on every surface', async () => {
    const body = {
      subject: 'user-42',
      ttlSeconds: 600,
      channels: [
        { name: 'chat:room', ops: ['subscribe', 'publish', 'presence', 'history'] },
        { name: 'feed:news', ops: ['subscribe', 'publish', 'presence', 'history'] },
        { name: 'ghost:x', ops: ['subscribe'] },
      ],
    };
    for (const environment of ['production', 'development'] as const) {
      const key = await publicKey(stack, product, environment);
      for (const c of callers(stack, product, key, environment)) {
        const before = Date.now();
        const answer = await c.issueToken(body);
        expect(answer.status, `${c.name}: ${JSON.stringify(answer.body)}`).to.equal(200);
        const issued = answer.body as TokenAnswer;
        expect(issued).to.have.keys(['token', 'gatewayUrl', 'expiresAt']);
        expect(issued.gatewayUrl, c.name).to.equal(base.config.gatewayUrls[environment]);
        const expiresMs = Date.parse(issued.expiresAt);
        expect(issued.expiresAt).to.equal(new Date(expiresMs).toISOString());
        expect(expiresMs, c.name).to.be.within(
          Math.floor(before / 1000) * 1000 + 600_000,
          Date.now() + 600_000,
        );
        const claims = await claimsOf(issued, environment);
        expect(claims).to.include({
          sub: 'ext:user-42',
          ext: true,
          pid: product.productId,
          env: environment,
        });
        expect(claims.grants, c.name).to.deep.equal([
          { name: 'chat:room', ops: ['subscribe', 'presence', 'history'] },
          { name: 'feed:news', ops: ['subscribe', 'publish'] },
        ]);
        // Signed with this environment's key: the other environment's service refuses it.
        const other = environment === 'production' ? 'development' : 'production';
        const keys = stack.runtime.http.signingKeys;
        const foreign = verifyRealtimeToken(issued.token, other, () => undefined, Date.now());
        expect(foreign, c.name).to.deep.equal({ rejected: 'unknown_key' });
        expect(await keys.active(other)).to.not.equal(undefined);
      }
    }
  });

  it('400 names the failing fields; 422 when nothing is left; default lifetime 3600 s', async () => {
    const key = await publicKey(stack, product);
    for (const c of callers(stack, product, key)) {
      const bad = await c.issueToken({
        subject: 'has:colon',
        channels: [{ name: 'chat:*', ops: ['subscribe', 'teleport'] }],
        ttlSeconds: 59,
      });
      expect(bad.status, c.name).to.equal(400);
      const paths = errorOf(bad).fields?.map((f) => f.path) ?? [];
      expect(paths, c.name).to.include.members(['body.subject', 'body.ttlSeconds']);
      expect(
        paths.some((p) => p.startsWith('body.channels[0]')),
        c.name,
      ).to.equal(true);
      const stripped = await c.issueToken({
        subject: 'ann',
        channels: [{ name: 'feed:news', ops: ['presence', 'history'] }],
      });
      expect(stripped.status, c.name).to.equal(422);
      expect(errorOf(stripped)).to.include({ code: 'no_capabilities' });
      const plain = await c.issueToken({
        subject: 'ann',
        channels: [{ name: 'chat:room', ops: ['subscribe'] }],
      });
      const exp = Date.parse((plain.body as TokenAnswer).expiresAt);
      expect(exp - Date.now(), c.name).to.be.within(3_595_000, 3_600_000);
    }
  });

  it('400 names a channel named twice, on every surface; the same channels once each are issued', async () => {
    const key = await publicKey(stack, product);
    for (const c of callers(stack, product, key)) {
      const twice = await c.issueToken({
        subject: 'ann',
        channels: [
          { name: 'chat:a', ops: ['subscribe'] },
          { name: 'chat:b', ops: ['subscribe'] },
          { name: 'chat:a', ops: ['history'] },
        ],
      });
      expect(twice.status, c.name).to.equal(400);
      expect(errorOf(twice)).to.include({ code: 'validation_error' });
      expect(
        errorOf(twice).fields?.map((f) => f.path),
        c.name,
      ).to.deep.equal(['body.channels[2].name']);
      expect(errorOf(twice).fields?.[0]?.message, c.name).to.match(/body\.channels\[0\]/);
      const once = await c.issueToken({
        subject: 'ann',
        channels: [
          { name: 'chat:a', ops: ['subscribe', 'history'] },
          { name: 'chat:b', ops: ['subscribe'] },
        ],
      });
      expect(once.status, c.name).to.equal(200);
    }
  });

  it('edge: a key of another product opens nothing here', async () => {
    const other = await base.newProduct(stack.management);
    const otherKey = await publicKey(stack, other);
    const answer = await edge(stack.edges.production, product.productId, 'POST', '/tokens/issue', otherKey, {
      subject: 'ann',
      channels: [{ name: 'chat:room', ops: ['subscribe'] }],
    });
    expect(answer.status).to.equal(401);
  });

  it('namespaces: PUT 201 then 200, get, list with pages, delete 204 then 404, for owner, member and rtk_ credentials', async () => {
    const member = await createPostgresMemberRepository(base.db).create({
      productId: product.productId,
      name: 'member',
      role: 'member',
    });
    const { token: memberToken } = await issueMemberToken(createPostgresMemberTokenRepository(base.db), {
      productId: product.productId,
      memberId: member.id,
      name: 'member token',
    });
    for (const [who, token] of [
      ['owner', product.ownerToken],
      ['member', memberToken],
      ['rtk_', product.rtkKey],
    ] as const) {
      const name = `ns-${who.replace('_', '')}`;
      const created = await mgmt(stack.management, 'PUT', `/realtime/namespaces/${name}`, token, {
        presence: true,
      });
      expect(created.status, who).to.equal(201);
      expect(created.body).to.deep.include({
        name,
        presence: true,
        client_events: false,
        history_window_seconds: 0,
        archive_days: 0,
      });
      const replaced = await mgmt(stack.management, 'PUT', `/realtime/namespaces/${name}`, token, {
        client_events: true,
        history_window_seconds: 2_592_000,
        archive_days: 3650,
      });
      expect(replaced.status, who).to.equal(200);
      expect(replaced.body).to.deep.include({
        presence: false,
        client_events: true,
        history_window_seconds: 2_592_000,
      });
      const got = await mgmt(stack.management, 'GET', `/realtime/namespaces/${name}`, token);
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.equal(replaced.body);
      for (const [field, value] of [
        ['history_window_seconds', 2_592_001],
        ['history_window_seconds', -1],
        ['archive_days', 3651],
        ['presence', 'yes'],
      ] as const) {
        const bad = await mgmt(stack.management, 'PUT', `/realtime/namespaces/${name}`, token, {
          [field]: value,
        });
        expect(bad.status, `${who} ${field}=${value}`).to.equal(400);
        expect(errorOf(bad).fields?.map((f) => f.path)).to.deep.equal([`body.${field}`]);
      }
      const badName = await mgmt(stack.management, 'PUT', '/realtime/namespaces/has:colon', token, {});
      expect(badName.status).to.equal(400);
      expect(errorOf(badName).fields?.map((f) => f.path)).to.deep.equal(['params.name']);
      expect((await mgmt(stack.management, 'DELETE', `/realtime/namespaces/${name}`, token)).status).to.equal(
        204,
      );
      const gone = await mgmt(stack.management, 'DELETE', `/realtime/namespaces/${name}`, token);
      expect(gone.status).to.equal(404);
      expect(errorOf(gone).code).to.equal('not_found');
      expect((await mgmt(stack.management, 'GET', `/realtime/namespaces/${name}`, token)).status).to.equal(
        404,
      );
    }
    // Pages by name: chat, feed, then p1 p2 p3.
    for (const n of ['p1', 'p2', 'p3']) await putNamespace(stack, product, n, {});
    const page1 = await mgmt<{ data: Array<{ name: string }>; next_cursor: string | null }>(
      stack.management,
      'GET',
      '/realtime/namespaces?limit=2',
      product.rtkKey,
    );
    expect(page1.body.data.map((n) => n.name)).to.deep.equal(['chat', 'feed']);
    expect(page1.body.next_cursor).to.equal('feed');
    const page2 = await mgmt<{ data: Array<{ name: string }>; next_cursor: string | null }>(
      stack.management,
      'GET',
      '/realtime/namespaces?limit=2&cursor=feed',
      product.rtkKey,
    );
    expect(page2.body.data.map((n) => n.name)).to.deep.equal(['p1', 'p2']);
    const page3 = await mgmt<{ data: Array<{ name: string }>; next_cursor: string | null }>(
      stack.management,
      'GET',
      `/realtime/namespaces?limit=2&cursor=${page2.body.next_cursor}`,
      product.rtkKey,
    );
    expect(page3.body).to.deep.equal({ data: [page3.body.data[0]], next_cursor: null });
    expect(page3.body.data.map((n) => n.name)).to.deep.equal(['p3']);
  });

  it('a mail key reaches no realtime operation (401 restricted_api_key)', async () => {
    const mailKey = await mgmt<{ key: string }>(
      stack.management,
      'POST',
      '/mail/api-keys',
      product.ownerToken,
      {
        name: 'mail',
        scope: 'full_access',
      },
    );
    expect(mailKey.status).to.equal(201);
    for (const [method, path] of [
      ['GET', '/realtime/namespaces'],
      ['POST', '/realtime/messages'],
      ['POST', '/realtime/tokens'],
      ['GET', '/realtime/channels/chat:room/history?last_n=1'],
    ] as const) {
      const answer = await mgmt(
        stack.management,
        method,
        path,
        mailKey.body.key,
        method === 'POST' ? {} : undefined,
      );
      expect(answer.status, path).to.equal(401);
      expect(errorOf(answer).code).to.equal('restricted_api_key');
    }
  });
});
