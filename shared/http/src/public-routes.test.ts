import { expect } from 'chai';
import { bindPublicRoutes } from './public-handlers.ts';
import { allowedMethods, matchPublicRoute, PUBLIC_ROUTES } from './public-routes.ts';
import { loadSchemaRegistry } from './schema-registry.ts';

describe('public route catalog', () => {
  it('lists the five keyed realtime routes, the two keyed mail routes and the keyless mail links', () => {
    const keyed = PUBLIC_ROUTES.filter((r) => r.keyed).map((r) => `${r.toolkit} ${r.method} ${r.path}`);
    expect(keyed).to.have.length(7);
    expect(PUBLIC_ROUTES.filter((r) => r.toolkit === 'realtime' && r.keyed)).to.have.length(5);
    expect(PUBLIC_ROUTES.filter((r) => !r.keyed).every((r) => r.toolkit === 'mail')).to.equal(true);
  });

  it('matches templates segment by segment and extracts parameters', () => {
    expect(matchPublicRoute('mail', 'GET', '/emails/abc')?.params).to.deep.equal({ id: 'abc' });
    expect(matchPublicRoute('realtime', 'GET', '/channels/chat:room/presence/stats')?.route.path).to.equal(
      '/channels/{channel}/presence/stats',
    );
    expect(matchPublicRoute('mail', 'GET', '/emails/')).to.equal(undefined);
    expect(matchPublicRoute('mail', 'GET', '/emails/a/b')).to.equal(undefined);
    expect(matchPublicRoute('mail', 'DELETE', '/emails/a')).to.equal(undefined);
    expect(matchPublicRoute('chat', 'POST', '/messages')).to.equal(undefined);
  });

  it('knows which methods a path answers', () => {
    expect(allowedMethods('mail', '/unsubscribe/t')).to.deep.equal(['GET', 'POST']);
    expect(allowedMethods('realtime', '/messages')).to.deep.equal(['POST']);
    expect(allowedMethods('realtime', '/nothing')).to.deep.equal([]);
  });
});

describe('public route table against schemas/http', () => {
  const schemas = loadSchemaRegistry();

  it('names only schemas that exist, one params property per path parameter, bodies on POST only', () => {
    const operationIds = new Set<string>();
    for (const route of PUBLIC_ROUTES) {
      expect(operationIds.has(route.operationId), route.operationId).to.equal(false);
      operationIds.add(route.operationId);
      const { params, query, body } = route.request ?? {};
      for (const id of [params, query, body, ...Object.values(route.responses ?? {})]) {
        if (typeof id === 'string')
          expect(schemas.get(id), `${route.operationId}: ${id}`).to.not.equal(undefined);
      }
      const names = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
      const declared = params ? Object.keys(schemas.get(params)!.properties as object) : [];
      expect(declared.sort(), route.operationId).to.deep.equal(names.sort());
      if (body) expect(route.method, route.operationId).to.equal('POST');
      expect(route.bodyLimitBytes, route.operationId).to.be.a('number').and.above(0);
    }
  });
});

describe('binding toolkit handlers', () => {
  const schemas = loadSchemaRegistry();
  const ok = () => ({ status: 200 });

  it('refuses at startup a handler that names no route, and a route bound twice', () => {
    expect(() => bindPublicRoutes([{ public_realtime_nothing: ok }], schemas)).to.throw(
      /names no public route/,
    );
    expect(() =>
      bindPublicRoutes(
        [{ public_realtime_message_publish: ok }, { public_realtime_message_publish: ok }],
        schemas,
      ),
    ).to.throw(/has two handlers/);
  });

  it('answers 501 not_implemented for a route no toolkit serves, before reading anything', async () => {
    const routes = bindPublicRoutes([{ public_realtime_message_publish: ok }], schemas);
    const unserved = PUBLIC_ROUTES.find((r) => r.operationId === 'public_mail_email_send')!;
    let refused: unknown;
    try {
      await routes.runnerFor(unserved)({} as Parameters<ReturnType<typeof routes.runnerFor>>[0]);
    } catch (err) {
      refused = err;
    }
    expect(refused).to.include({ status: 501, code: 'not_implemented' });
  });
});
