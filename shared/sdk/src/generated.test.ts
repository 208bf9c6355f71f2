import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildToolCatalog, dereferenceSchema } from '@lattice/http';
import { expect } from 'chai';
import { loadSdkCatalog, type SdkCatalog } from '../scripts/catalog-source.ts';
import { generateSdkSources, REPO_ROOT } from '../scripts/sdk-sources.ts';
import { EDGE_OPERATIONS } from './generated/edge-operations.ts';
import { CATALOG_VERSION, MANAGEMENT_OPERATIONS } from './generated/management-operations.ts';

describe('generated code: what the catalog gives, today', function () {
  // Loading the management route table and running Biome on five files takes a few seconds.
  this.timeout(60_000);
  let catalog: SdkCatalog;
  before(() => {
    catalog = loadSdkCatalog();
  });

  it('is not stale: regenerating in memory gives the committed files (else run `npm run sdk:generate`)', async () => {
    const stale: string[] = [];
    for (const [path, text] of await generateSdkSources(catalog)) {
      const committed = await readFile(join(REPO_ROOT, path), 'utf8').catch(() => '');
      if (committed !== text) stale.push(path);
    }
    expect(stale, 'stale generated files: run `npm run sdk:generate`').to.deep.equal([]);
  });

  it('names the catalog version the management API publishes for this catalog', () => {
    expect(CATALOG_VERSION).to.equal(catalog.openApi['x-lattice'].catalog_version);
  });

  it('has one method per catalog operation and per keyed public route, and no other', () => {
    expect(MANAGEMENT_OPERATIONS.map((op) => op.id)).to.deep.equal(catalog.routes.map((r) => r.operationId));
    expect(EDGE_OPERATIONS.map((op) => op.id)).to.deep.equal(catalog.edge.map((op) => op.operationId));
    const operationIds = Object.values(catalog.openApi.paths).flatMap((item) =>
      Object.values(item).map((op) => (op as { operationId: string }).operationId),
    );
    expect([...MANAGEMENT_OPERATIONS.map((op) => op.id)].sort()).to.deep.equal(operationIds.sort());
  });

  it('takes the arguments the agent tools take, flattened the same way', () => {
    const tools = new Map(buildToolCatalog(catalog.routes, catalog.schemas).map((t) => [t.name, t]));
    for (const op of MANAGEMENT_OPERATIONS) {
      const tool = tools.get(op.id)!;
      const toolArgs = Object.keys(tool.inputSchema.properties as object).sort();
      const named = [...(op.params ?? []), ...(op.query ?? []), ...(op.headers ?? [])];
      if (op.body === 'nested') named.push('body');
      // What is not a parameter or a header goes in the body: the body schema's fields.
      const route = catalog.routes.find((r) => r.operationId === op.id)!;
      const bodyFields =
        op.body === 'fields'
          ? Object.keys(dereferenceSchema(route.request!.body!, catalog.schemas).properties as object)
          : [];
      expect([...named, ...bodyFields].sort(), op.id).to.deep.equal(toolArgs);
    }
  });

  it('sends an Idempotency-Key exactly on the operations whose route reads one', () => {
    const keyed = (ops: readonly { id: string; idempotent?: true }[]) =>
      ops.filter((op) => op.idempotent).map((op) => op.id);
    expect(keyed(MANAGEMENT_OPERATIONS)).to.deep.equal(['mail_email_send', 'realtime_message_publish']);
    expect(keyed(EDGE_OPERATIONS)).to.deep.equal([
      'public_mail_email_send',
      'public_realtime_message_publish',
    ]);
  });

  it('pages every …_list operation and nothing else', () => {
    for (const op of [...MANAGEMENT_OPERATIONS, ...EDGE_OPERATIONS]) {
      expect(op.list === true, op.id).to.equal(op.id.endsWith('_list'));
      if (op.list) expect(op.query, op.id).to.include('cursor');
    }
  });
});
