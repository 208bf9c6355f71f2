import { createLogger, type Logger, parseSecretKeys, sha256Hex } from '@lattice/core';
import { testConfig } from '@lattice/core/testing';
import { buildToolCatalog, loadSchemaRegistry } from '@lattice/http';
import { listen } from '@lattice/http/testing';
import { createTargetGuard } from '@lattice/mail';
import { createMailHttpWithoutSending } from '@lattice/mail/testing';
import { createRealtimeHttpWithoutPublishing } from '@lattice/realtime/testing';
import { createDb, createPostgresMemberTokenRepository, type Db } from '@lattice/store';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { createManagementApp, type ManagementDeps } from './app.ts';
import { startTestManagement, type TestManagement } from './testing/test-management.ts';
import { silentKeyChangeNotifier } from './testing.ts';

/** The app alone over `db`, with nothing behind it that these tests reach. */
function appDeps(db: Db, logger: Logger): ManagementDeps {
  const secretKeys = parseSecretKeys(testConfig().secretKeys);
  return {
    db,
    logger,
    registry: new Registry(),
    keyChanges: silentKeyChangeNotifier,
    realtime: createRealtimeHttpWithoutPublishing({
      db,
      logger,
      keyring: secretKeys,
      gatewayUrls: testConfig().gatewayUrls,
    }),
    secretKeys,
    mail: testConfig().mail,
    mailHttp: createMailHttpWithoutSending({ db }),
    webhookTargets: createTargetGuard({ allowPrivateTargets: false }),
  };
}

const INVALID = {
  error: {
    code: 'invalid_token',
    message: 'The token is malformed, unknown or revoked',
    step: 'token_validation',
  },
};
const MISSING = {
  error: {
    code: 'missing_token',
    message: 'Send the credential as Authorization: Bearer <token>',
    step: 'authentication',
  },
};

describe('management API (real PostgreSQL, real server)', () => {
  let t: TestManagement;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.server.url}${path}`, { headers });
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('json')
      ? (JSON.parse(text) as unknown)
      : undefined;
    return { status: res.status, headers: res.headers, text, json };
  };

  before(async () => {
    t = await startTestManagement();
  });
  after(() => t.close());

  describe('Bearer authentication', () => {
    it('answers 401 missing_token without an Authorization header', async () => {
      const r = await get('/organization/product');
      expect(r.status).to.equal(401);
      expect(r.json).to.deep.equal(MISSING);
    });

    it('answers 401 invalid_token for wrong scheme, malformed, unknown and revoked tokens alike', async () => {
      const { owner_token } = await t.newProduct('auth');
      const revoked = await t.newProduct('revoked');
      const tokens = createPostgresMemberTokenRepository(t.db);
      const record = await tokens.findActiveByHash(sha256Hex(revoked.owner_token));
      expect((await tokens.revoke(revoked.product_id, record!.id))?.revokedAt).to.be.instanceOf(Date);

      const headers = [
        `Basic ${Buffer.from(`user:${owner_token}`).toString('base64')}`,
        `Token ${owner_token}`,
        owner_token,
        'Bearer',
        'Bearer not-a-token',
        `Bearer ${owner_token.slice(0, -1)}`,
        `Bearer ${owner_token}x`,
        `Bearer lmt_${'0'.repeat(32)}`,
        `Bearer ${revoked.owner_token}`,
      ];
      for (const authorization of headers) {
        const r = await get('/organization/product', { authorization });
        expect(r.status, authorization).to.equal(401);
        expect(r.json, authorization).to.deep.equal(INVALID);
      }
    });

    it('names the caller: a member token with its role', async () => {
      const p = await t.newProduct('caller');
      const member = await t.newMember(p.product_id, 'member');
      const asMember = await get('/organization/product', { authorization: `Bearer ${member.token}` });
      expect((asMember.json as { caller: unknown }).caller).to.deep.equal({
        credential_kind: 'member_token',
        role: 'member',
        member_id: member.memberId,
      });
      // An area key does not reach the organization area at all (decisions.md).
      const created = await t.call<{ key: string }>('POST', '/realtime/api-keys', p.owner_token, {
        name: 'caller-check',
      });
      const asKey = await get('/organization/product', { authorization: `Bearer ${created.json.key}` });
      expect(asKey.status).to.equal(401);
    });

    it('lets a valid token reach its own product, and only its own', async () => {
      const a = await t.newProduct('own-a');
      const b = await t.newProduct('own-b');
      for (const p of [a, b]) {
        const r = await get('/organization/product', { authorization: `Bearer ${p.owner_token}` });
        expect(r.status).to.equal(200);
        const body = r.json as { id: string; name: string; created_at: string; caller: unknown };
        expect(body).to.have.all.keys('id', 'name', 'created_at', 'caller');
        const [owner] = await t.db('members').where({ product_id: p.product_id, role: 'owner' });
        expect(body.caller).to.deep.equal({
          credential_kind: 'member_token',
          role: 'owner',
          member_id: owner.id,
        });
        expect(body.id).to.equal(p.product_id);
        expect(body.name).to.equal(p.name);
        expect(Number.isNaN(Date.parse(body.created_at))).to.equal(false);
      }
    });

    it('records when a token was last used', async () => {
      const p = await t.newProduct('used');
      await get('/organization/product', { authorization: `Bearer ${p.owner_token}` });
      const [row] = await t.db('member_tokens').where({ product_id: p.product_id });
      expect(row.last_used_at).to.be.instanceOf(Date);
    });
  });

  describe('/openapi.json', () => {
    it('is a valid OpenAPI 3.1 document carrying the catalog version', async () => {
      const r = await get('/openapi.json');
      expect(r.status).to.equal(200);
      const validator = new Validator();
      const result = await validator.validate(r.json as never);
      expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
      expect(result.valid).to.equal(true);
      expect(validator.version).to.equal('3.1');

      const doc = r.json as { 'x-lattice': { catalog_version: string }; paths: Record<string, unknown> };
      expect(doc['x-lattice'].catalog_version).to.match(/^[0-9a-f]{12}$/);
      expect(r.headers.get('x-catalog-version')).to.equal(doc['x-lattice'].catalog_version);
      expect(doc.paths).to.have.property('/organization/product');
      expect(doc.paths).to.not.have.property('/healthz');
    });

    it('has exactly one agent tool per operation', async () => {
      const doc = (await get('/openapi.json')).json as {
        paths: Record<string, Record<string, { operationId: string }>>;
      };
      const operationIds = Object.values(doc.paths).flatMap((item) =>
        Object.values(item).map((op) => op.operationId),
      );
      const tools = buildToolCatalog(t.routes, loadSchemaRegistry());
      expect(tools.map((tool) => tool.name).sort()).to.deep.equal([...operationIds].sort());
      expect(operationIds).to.include('organization_product_get');
    });
  });

  describe('operational endpoints', () => {
    it('reports health with the database reachable', async () => {
      const r = await get('/healthz');
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({ status: 'ok' });
    });

    it('answers 503 database_unavailable when the database cannot be reached', async () => {
      const logger = createLogger({ name: 'test', level: 'silent' });
      const db = createDb({ databaseUrl: 'postgres://postgres@127.0.0.1:1/nowhere', logger });
      const app = createManagementApp(appDeps(db, logger));
      const server = await listen(app);
      try {
        const res = await fetch(`${server.baseUrl}/healthz`);
        expect(res.status).to.equal(503);
        expect(await res.json()).to.deep.equal({
          error: {
            code: 'database_unavailable',
            message: 'The database is not reachable',
            step: 'health_check',
          },
        });
      } finally {
        await server.close();
        await db.destroy();
      }
    });

    it('answers 503 service_unavailable, not 401 or 500, when credentials cannot be checked', async () => {
      const logger = createLogger({ name: 'test', level: 'silent' });
      const db = createDb({ databaseUrl: 'postgres://postgres@127.0.0.1:1/nowhere', logger });
      const app = createManagementApp(appDeps(db, logger));
      const server = await listen(app);
      try {
        const res = await fetch(`${server.baseUrl}/organization/product`, {
          headers: { authorization: 'Bearer lmt_0123456789abcdef0123456789abcdef' },
        });
        expect(res.status).to.equal(503);
        expect(res.headers.get('retry-after')).to.equal('1');
        expect(((await res.json()) as { error: { code: string; step: string } }).error).to.include({
          code: 'service_unavailable',
          step: 'authentication',
        });
      } finally {
        await server.close();
        await db.destroy();
      }
    });

    it('counts requests by operationId and status in /metrics', async () => {
      const p = await t.newProduct('metrics');
      await get('/organization/product', { authorization: `Bearer ${p.owner_token}` });
      await get('/organization/product');
      await get('/no/such/route');
      const r = await get('/metrics');
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^text\/plain/);
      const line = (op: string, status: number) =>
        new RegExp(
          `lattice_management_http_requests_total\\{[^}]*operation_id="${op}"[^}]*status="${status}"[^}]*\\} [1-9]`,
        );
      expect(r.text).to.match(line('organization_product_get', 200));
      expect(r.text).to.match(line('organization_product_get', 401));
      expect(r.text).to.match(line('unmatched', 404));
      expect(r.text).to.include('lattice_management_http_request_duration_seconds_bucket');
    });

    it('never logs a presented token', async () => {
      const p = await t.newProduct('logs');
      await get('/organization/product', { authorization: `Bearer ${p.owner_token}` });
      await get('/organization/product', { authorization: `Bearer ${p.owner_token}0` });
      expect(t.logs.text()).to.not.include(p.owner_token.slice(4));
    });
  });
});
