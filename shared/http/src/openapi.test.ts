import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { buildOpenApi } from './openapi.ts';
import type { RouteDef } from './route-def.ts';
import { fixtureRegistry, fixtureRoutes, withHeaderParameters } from './testing/route-fixtures.ts';

const INFO = { title: 'Fixture API', version: '1.0.0' };

function versionOf(routes: RouteDef[], schemas = fixtureRegistry(), info = INFO): string {
  return buildOpenApi(routes, info, schemas)['x-lattice'].catalog_version;
}

describe('buildOpenApi', () => {
  it('produces a valid OpenAPI 3.1 document', async () => {
    const doc = buildOpenApi(fixtureRoutes(), INFO, fixtureRegistry());
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  it('rewrites paths and lists parameters, bodies, security and standard errors', () => {
    const doc = buildOpenApi(fixtureRoutes(), INFO, fixtureRegistry());
    expect(Object.keys(doc.paths).sort()).to.deep.equal([
      '/boom',
      '/things',
      '/things/{id}',
      '/wrong-answer',
    ]);
    const get = doc.paths['/things/{id}']!.get as Record<string, unknown>;
    expect(get.operationId).to.equal('things_get');
    expect(get.tags).to.deep.equal(['things']);
    expect(get.security).to.deep.equal([{ managementToken: [] }]);
    expect(get.parameters).to.deep.include({
      name: 'id',
      in: 'path',
      required: true,
      description: 'Thing id',
      schema: { type: 'string', pattern: '^[a-z0-9]{3,10}$', description: 'Thing id' },
    });
    expect(
      (get.parameters as Array<{ name: string; required: boolean }>).find((p) => p.name === 'limit')!
        .required,
    ).to.equal(false);
    expect(Object.keys(get.responses as object).sort()).to.deep.equal([
      '200',
      '400',
      '401',
      '413',
      '415',
      '500',
      '503',
    ]);

    const post = doc.paths['/things']!.post as Record<string, unknown>;
    expect(post.requestBody).to.deep.equal({
      required: true,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/thing-create' },
          example: { name: 'lamp' },
        },
      },
    });
    expect(post['x-body-limit-bytes']).to.equal(100);
    expect(Object.keys(post.responses as object).sort()).to.deep.equal([
      '201',
      '400',
      '401',
      '413',
      '415',
      '500',
      '503',
    ]);
    expect((doc.paths['/boom']!.get as Record<string, unknown>).security).to.deep.equal([]);
  });

  it('lists the request headers an operation reads as header parameters, and an answer’s own headers', async () => {
    const doc = buildOpenApi(withHeaderParameters(fixtureRoutes()), INFO, fixtureRegistry());
    const result = await new Validator().validate(structuredClone(doc) as never);
    expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
    const post = doc.paths['/things']!.post as {
      parameters: unknown[];
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    expect(post.parameters).to.deep.equal([
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', maxLength: 255, examples: ['k-1'] },
        example: 'k-1',
      },
      {
        name: 'Prefer',
        in: 'header',
        required: false,
        description: 'RFC 7240',
        schema: { type: 'string', description: 'RFC 7240' },
      },
    ]);
    expect(post.responses['201']!.headers).to.deep.equal({
      'X-Catalog-Version': { $ref: '#/components/headers/X-Catalog-Version' },
      'Preference-Applied': { description: '`return=representation`', schema: { type: 'string' } },
    });
    expect(Object.keys(post.responses['202']!.headers!)).to.deep.equal(['X-Catalog-Version']);
    // The headers schema is inlined as parameters, not published as a component.
    expect(doc.components.schemas).to.not.have.property('thing-headers');
  });

  it('refuses a headers schema that names something no header is called', () => {
    const schemas = fixtureRegistry({
      'thing-headers': { $id: 'thing-headers', type: 'object', properties: { 'not a header': {} } },
    });
    expect(() => buildOpenApi(withHeaderParameters(fixtureRoutes()), INFO, schemas)).to.throw(
      /"not a header", which is not a header name/,
    );
  });

  it('declares the required roles on operations restricted to some roles', () => {
    const routes = fixtureRoutes().map((r) =>
      r.operationId === 'things_create' ? { ...r, access: { roles: ['owner', 'admin'] as const } } : r,
    );
    const doc = buildOpenApi(routes, INFO, fixtureRegistry());
    const post = doc.paths['/things']!.post as Record<string, unknown>;
    expect(post['x-required-roles']).to.deep.equal(['owner', 'admin']);
    const get = doc.paths['/things/{id}']!.get as Record<string, unknown>;
    expect(get).to.not.have.property('x-required-roles');
  });

  it('lists every error answer by status, each with its real body as an example', () => {
    const doc = buildOpenApi(fixtureRoutes(), INFO, fixtureRegistry());
    const del = doc.paths['/things/{id}']!.delete as { responses: Record<string, Record<string, unknown>> };
    const notFound = del.responses['404']!;
    expect(notFound.description).to.equal('`not_found`: No thing with this id.');
    expect(notFound.content).to.deep.equal({
      'application/json': {
        schema: { $ref: '#/components/schemas/error-body' },
        examples: {
          not_found: {
            summary: 'No thing with this id',
            value: { error: { code: 'not_found', message: 'No thing with this id', step: 'lookup' } },
          },
        },
      },
    });
    const unauthorized = del.responses['401']!.content as Record<string, { examples: object }>;
    expect(Object.keys(unauthorized['application/json']!.examples)).to.deep.equal([
      'missing_token',
      'invalid_token',
    ]);
    // A route without a body is refused for sending one; any route for a body over the cap.
    expect(del.responses['400']!.description).to.include('unexpected_body');
    expect(del.responses['413']!.description).to.include('payload_too_large');
  });

  it('publishes only what the catalog points at, each referenced part as a component of its own', () => {
    const doc = buildOpenApi(fixtureRoutes(), INFO, fixtureRegistry());
    const schemas = doc.components.schemas as Record<string, Record<string, unknown>>;
    expect(Object.keys(schemas)).to.deep.equal([
      'common.name',
      'error-body',
      'error-body.field-error',
      'thing',
      'thing-create',
    ]);
    expect(schemas['common.name']).to.deep.equal({ type: 'string', minLength: 1, maxLength: 20 });
    const json = JSON.stringify(schemas);
    expect(json).to.not.include('"$id"');
    expect(json).to.not.include('$defs');
    expect(json).to.include('"#/components/schemas/common.name"');
    expect(json).to.include('"#/components/schemas/error-body.field-error"');
  });

  it('leaves operational routes out', () => {
    const doc = buildOpenApi(fixtureRoutes(), INFO, fixtureRegistry());
    expect(doc.paths).to.not.have.property('/healthz');
  });

  describe('catalog_version', () => {
    it('is a short hex digest, stable for the same catalog regardless of order, info or operational routes', () => {
      const routes = fixtureRoutes();
      const v = versionOf(routes);
      expect(v).to.match(/^[0-9a-f]{12}$/);
      expect(versionOf(fixtureRoutes())).to.equal(v);
      expect(versionOf([...routes].reverse())).to.equal(v);
      expect(versionOf(routes, fixtureRegistry(), { title: 'Renamed', version: '9.9.9' })).to.equal(v);
      expect(versionOf(routes.filter((r) => !r.operational))).to.equal(v);
      // A schema nothing references is not part of the catalog.
      expect(versionOf(routes, fixtureRegistry({ unused: { $id: 'unused', type: 'integer' } }))).to.equal(v);
    });

    it('changes when a path, a method, an operationId or a schema changes', () => {
      const routes = fixtureRoutes();
      const v = versionOf(routes);
      const changed = (i: number, patch: Partial<RouteDef>) =>
        routes.map((r, j) => (j === i ? { ...r, ...patch } : r));
      const versions = [
        versionOf(changed(2, { path: '/stuff' })),
        versionOf(changed(1, { method: 'POST' })),
        versionOf(changed(0, { operationId: 'things_fetch' })),
        versionOf(changed(0, { summary: 'Fetch a thing' })),
        versionOf(changed(2, { bodyLimitBytes: 101 })),
        versionOf(
          routes,
          fixtureRegistry({ common: { $id: 'common', $defs: { name: { type: 'string', maxLength: 21 } } } }),
        ),
        versionOf(routes.slice(1)),
      ];
      for (const other of versions) expect(other).to.not.equal(v);
      expect(new Set(versions).size).to.equal(versions.length);
    });
  });
});
