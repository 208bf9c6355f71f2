import { expect } from 'chai';
import { type JsonSchema, loadSchemaRegistry } from './schema-registry.ts';
import { createSchemaChecker } from './validation.ts';

// The OpenAPI document lifts the first `examples` entry of a body or answer schema into the
// operation's `example`, and of a path or query property into the parameter's (openapi.ts). An
// example that its own schema refuses would teach callers a request we reject, or promise an
// answer we never send: every entry is checked here by the validator the API itself runs
// (the registry's compiled schemas, $refs between files resolved, formats checked).
const schemas = loadSchemaRegistry();
const check = createSchemaChecker(schemas);

/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
/** Keywords whose value is one schema. */
const SCHEMA_VALUES = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

interface ExampleSite {
  /** `<$id>` or `<$id>#/json/pointer`: the (sub)schema the examples sit in, as ajv resolves it. */
  ref: string;
  examples: unknown;
}

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** Every subschema of `id` that has an `examples` keyword; only schema positions, never data. */
function exampleSites(id: string, schema: JsonSchema): ExampleSite[] {
  const sites: ExampleSite[] = [];
  const visit = (node: unknown, pointer: string) => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    const obj = node as Record<string, unknown>;
    if ('examples' in obj)
      sites.push({ ref: pointer === '' ? id : `${id}#${pointer}`, examples: obj.examples });
    for (const key of SCHEMA_MAPS) {
      const map = obj[key];
      if (typeof map !== 'object' || map === null) continue;
      for (const [name, child] of Object.entries(map))
        visit(child, `${pointer}/${key}/${escapePointer(name)}`);
    }
    for (const key of SCHEMA_VALUES) if (key in obj) visit(obj[key], `${pointer}/${key}`);
    for (const key of SCHEMA_LISTS) {
      const list = obj[key];
      if (!Array.isArray(list)) continue;
      for (const [i, child] of list.entries()) visit(child, `${pointer}/${key}/${i}`);
    }
  };
  visit(schema, '');
  return sites;
}

// Schemas that need no example of their own:
// parameters (examples per property, as the document shows them) and parts shared by other schemas
const BUILDING_BLOCK = /-(params|query|query-management|headers|common|fields)$/;
const NO_EXAMPLE_NEEDED: Record<string, string> = {
  'error-body': 'error answers are shown per error code from each route’s `errors` (openapi.ts)',
  health: 'answered only by the operational GET /healthz, which the document leaves out',
  'mail-unsubscribe-form': 'public edge only: the one-click unsubscribe form a mail provider posts',
  'realtime-message-publish': 'public edge body; management publishes with -management, which refers to it',
  'realtime-token-request': 'public edge body; management issues with -management, which refers to it',
  'realtime-presence-stats': 'public edge only (GET /channels/{channel}/presence/stats)',
};

const sitesById = new Map(schemas.ids().map((id) => [id, exampleSites(id, schemas.get(id)!)]));

describe('schema examples', () => {
  for (const [id, sites] of sitesById) {
    for (const site of sites) {
      it(`${site.ref}: every example validates against the schema it sits in`, () => {
        expect(site.examples, 'examples must be a non-empty array').to.be.an('array').that.is.not.empty;
        (site.examples as unknown[]).forEach((example, i) => {
          const problems = check(site.ref, structuredClone(example));
          expect(problems, `${id}: examples[${i}] ${JSON.stringify(problems)}`).to.deep.equal([]);
        });
      });
    }
  }

  it('gives every body and answer schema a top-level example', () => {
    const missing = schemas
      .ids()
      .filter((id) => !BUILDING_BLOCK.test(id) && !(id in NO_EXAMPLE_NEEDED))
      .filter((id) => !sitesById.get(id)!.some((site) => site.ref === id));
    expect(missing, 'schemas without a top-level `examples`').to.deep.equal([]);
  });

  it('names only schemas that exist among those needing no example', () => {
    expect(Object.keys(NO_EXAMPLE_NEEDED).filter((id) => !schemas.get(id))).to.deep.equal([]);
  });

  it('gives every path parameter and list limit of the management API an example', () => {
    const parameters = [
      'key-id-params#/properties/id',
      'mail-domain-params#/properties/id',
      'mail-email-params#/properties/id',
      'mail-suppression-params#/properties/address',
      'mail-webhook-params#/properties/id',
      'mail-webhook-delivery-params#/properties/id',
      'mail-webhook-delivery-params#/properties/delivery_id',
      'realtime-channel-params#/properties/channel',
      'realtime-namespace-params#/properties/name',
      ...schemas
        .ids()
        .filter((id) => id.endsWith('-query') && schemas.get(id)!.properties)
        .filter((id) => 'limit' in (schemas.get(id)!.properties as object))
        .map((id) => `${id}#/properties/limit`),
    ];
    const withExamples = new Set([...sitesById.values()].flat().map((site) => site.ref));
    expect(parameters.filter((ref) => !withExamples.has(ref))).to.deep.equal([]);
  });

  it('catches an example its schema refuses, at the top level and in a property', () => {
    const [domain] = schemas.get('mail-domain')!.examples as Array<Record<string, unknown>>;
    expect(check('mail-domain', { ...domain, status: 'active' })).to.not.be.empty;
    expect(check('mail-domain', { ...domain, records: [{ type: 'TXT' }] })).to.not.be.empty;
    expect(check('mail-domain', { ...domain, created_at: 'yesterday' })).to.not.be.empty;
    const [created] = schemas.get('mail-api-key-created')!.examples as Array<Record<string, unknown>>;
    expect(check('mail-api-key-created', { ...created, secret: 'x' })).to.not.be.empty;
    expect(check('key-id-params#/properties/id', 'key-1')).to.not.be.empty;
    expect(check('realtime-channel-params#/properties/channel', 'room-1')).to.not.be.empty;
  });
});
