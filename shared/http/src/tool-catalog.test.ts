import { expect } from 'chai';
import { buildOpenApi } from './openapi.ts';
import type { RouteDef } from './route-def.ts';
import { fixtureRegistry, fixtureRoutes, withHeaderParameters } from './testing/route-fixtures.ts';
import { buildToolCatalog } from './tool-catalog.ts';

function operationIds(doc: ReturnType<typeof buildOpenApi>): string[] {
  return Object.values(doc.paths).flatMap((item) =>
    Object.values(item).map((op) => (op as { operationId: string }).operationId),
  );
}

describe('buildToolCatalog', () => {
  it('has exactly one tool per OpenAPI operation, named by its operationId', () => {
    const routes = fixtureRoutes();
    const tools = buildToolCatalog(routes, fixtureRegistry());
    const ops = operationIds(buildOpenApi(routes, { title: 't', version: '1' }, fixtureRegistry()));
    expect(tools.map((t) => t.name).sort()).to.deep.equal([...ops].sort());
    expect(new Set(tools.map((t) => t.name)).size).to.equal(tools.length);
    expect(tools.map((t) => t.name)).to.not.include('system_health');
  });

  it('merges path, query and body fields into one self-contained input schema', () => {
    const tools = buildToolCatalog(fixtureRoutes(), fixtureRegistry());
    const get = tools.find((t) => t.name === 'things_get')!;
    expect(get.inputSchema).to.deep.equal({
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^[a-z0-9]{3,10}$', description: 'Thing id' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
        cursor: { type: 'string' },
      },
      required: ['id'],
      additionalProperties: false,
    });
    const create = tools.find((t) => t.name === 'things_create')!;
    expect(create.inputSchema.properties).to.deep.equal({
      name: { type: 'string', minLength: 1, maxLength: 20 },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
    });
    expect(create.inputSchema.required).to.deep.equal(['name']);
    expect(create.description).to.equal('Create a thing\n\nMakes a new thing.\n\n(POST /things)');
    for (const tool of tools) expect(JSON.stringify(tool.inputSchema)).to.not.include('$ref');
  });

  it('takes the request headers an operation reads as arguments under their header names', () => {
    const tools = buildToolCatalog(withHeaderParameters(fixtureRoutes()), fixtureRegistry());
    const create = tools.find((t) => t.name === 'things_create')!;
    expect(create.inputSchema.properties).to.deep.equal({
      name: { type: 'string', minLength: 1, maxLength: 20 },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      'Idempotency-Key': { type: 'string', maxLength: 255, examples: ['k-1'] },
      Prefer: { type: 'string', description: 'RFC 7240' },
    });
    expect(create.inputSchema.required).to.deep.equal(['name']);
  });

  it('nests a body that is not a flat object, and refuses a field that two parts both define', () => {
    const schemas = fixtureRegistry({
      'thing-create': { $id: 'thing-create', oneOf: [{ type: 'object' }, { type: 'array' }] },
    });
    const create = buildToolCatalog(fixtureRoutes(), schemas).find((t) => t.name === 'things_create')!;
    expect(Object.keys(create.inputSchema.properties as object)).to.deep.equal(['body']);

    const clash: RouteDef = {
      ...fixtureRoutes()[2]!,
      method: 'PUT',
      path: '/things/:id',
      operationId: 'things_put',
      request: { params: 'thing-params', body: 'thing' },
    };
    expect(() => buildToolCatalog([clash], fixtureRegistry())).to.throw(/"id" comes from two parts/);
  });

  it('refuses a recursive schema it cannot inline', () => {
    const schemas = fixtureRegistry({
      'thing-create': {
        $id: 'thing-create',
        type: 'object',
        properties: { child: { $ref: 'thing-create' } },
      },
    });
    expect(() => buildToolCatalog(fixtureRoutes(), schemas)).to.throw(/recursive \$ref/);
  });
});
