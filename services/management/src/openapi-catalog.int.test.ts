// The served catalog as a reference: Redocly's linter finds nothing to say about it, every
// operation has its words, examples and error answers, and every list pages alike. What a demanding
// integrator reads (and what an agent's tool description is made of) is checked here, on the
// document the running server serves.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { catalogRoutes, type OpenApiDocument } from '@lattice/http';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from './testing/test-management.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REDOCLY_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
  'bin',
  'cli.js',
);

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { example?: unknown; examples?: object }> }>;
}

function operationsOf(doc: OpenApiDocument): Array<{ method: string; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op: op as Operation })),
  );
}

describe('management API: the catalog as a reference', function () {
  this.timeout(60_000);
  let t: TestManagement;
  let doc: OpenApiDocument;
  before(async () => {
    t = await startTestManagement();
    doc = (await t.call<OpenApiDocument>('GET', '/openapi.json')).json;
  });
  after(() => t?.close());

  it('passes the Redocly linter (recommended rules) with no error and no warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lattice-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(doc));
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [REDOCLY_CLI, 'lint', file, '--format=json', `--config=${join(REPO_ROOT, 'redocly.yaml')}`],
        { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
      ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
      const report = JSON.parse(stdout) as {
        problems: Array<{
          ruleId: string;
          severity: string;
          message: string;
          location: Array<{ pointer: string }>;
        }>;
      };
      const problems = report.problems.map(
        (p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`,
      );
      expect(problems).to.deep.equal([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives every operation a summary, a description, and examples of its body and its answer', () => {
    const missing: string[] = [];
    for (const { op } of operationsOf(doc)) {
      if (!op.summary?.trim()) missing.push(`${op.operationId}: summary`);
      if (!op.description?.trim()) missing.push(`${op.operationId}: description`);
      const body = op.requestBody?.content['application/json'];
      if (body && body.example === undefined) missing.push(`${op.operationId}: request example`);
      for (const [status, answer] of Object.entries(op.responses)) {
        const json = answer.content?.['application/json'];
        if (json && json.example === undefined && json.examples === undefined) {
          missing.push(`${op.operationId}: ${status} example`);
        }
      }
    }
    expect(missing).to.deep.equal([]);
  });

  it('documents the error answers each operation can give, each with the error body', () => {
    const byId = new Map(operationsOf(doc).map(({ op }) => [op.operationId, op]));
    const statuses = (id: string) => Object.keys(byId.get(id)!.responses);
    // Every operation: credentials (401), malformed input (400), the body cap (413), 5xx.
    for (const { op } of operationsOf(doc)) {
      expect(statuses(op.operationId), op.operationId).to.include.members([
        '400',
        '401',
        '413',
        '500',
        '503',
      ]);
      for (const [status, answer] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const json = answer.content?.['application/json'] as { schema: unknown; examples: object };
        expect(json.schema, `${op.operationId} ${status}`).to.deep.equal({
          $ref: '#/components/schemas/error-body',
        });
        expect(Object.keys(json.examples).length, `${op.operationId} ${status}`).to.be.greaterThan(0);
      }
    }
    // The refusals particular to an operation (decisions.md and the spec).
    expect(statuses('organization_public-keys_create')).to.include('403');
    expect(statuses('organization_public-keys_revoke')).to.include.members(['403', '404', '409']);
    expect(statuses('mail_email_send')).to.include.members(['409', '422', '429']);
    expect(statuses('mail_domain_delete')).to.include.members(['404', '409']);
    expect(statuses('realtime_message_publish')).to.include.members(['404', '409', '429']);
    expect(statuses('realtime_token_issue')).to.include('422');
    expect(statuses('realtime_presence_get')).to.include('403');
    const revoked = byId.get('organization_public-keys_revoke')!.responses['409']!.content![
      'application/json'
    ]!.examples as Record<string, { value: unknown }>;
    expect(revoked.public_key_revoked!.value).to.deep.equal({
      error: {
        code: 'public_key_revoked',
        message: 'The public key is revoked; revoking is permanent. Create a new key instead.',
        step: 'state',
      },
    });
  });

  it('pages every list alike: limit 1..100 (default 50), cursor, and {data, next_cursor}', () => {
    const lists = catalogRoutes(t.routes).filter((r) => r.operationId.endsWith('_list'));
    expect(lists.length).to.be.greaterThan(7);
    for (const route of lists) {
      const op = operationsOf(doc).find((o) => o.op.operationId === route.operationId)!.op;
      const limit = op.parameters?.find((p) => p.name === 'limit' && p.in === 'query');
      expect(limit?.schema, route.operationId).to.include({
        type: 'integer',
        minimum: 1,
        maximum: 100,
        default: 50,
      });
      expect(
        op.parameters?.some((p) => p.name === 'cursor' && p.in === 'query'),
        route.operationId,
      ).to.equal(true);
      const answer = doc.components.schemas![route.responses[200] as string] as {
        required: string[];
        properties: Record<string, unknown>;
      };
      expect(answer.required, route.operationId).to.include.members(['data', 'next_cursor']);
    }
  });

  it('documents a publish that waits for its offset: the Prefer and Idempotency-Key headers, and the 201 with Preference-Applied', () => {
    const publish = operationsOf(doc).find(({ op }) => op.operationId === 'realtime_message_publish')!
      .op as Operation & {
      responses: Record<
        string,
        { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }
      >;
    };
    expect(publish.parameters?.map((p) => [p.in, p.name])).to.deep.equal([
      ['header', 'Idempotency-Key'],
      ['header', 'Prefer'],
    ]);
    expect(publish.responses['201']!.content!['application/json']!.schema).to.deep.equal({
      $ref: '#/components/schemas/realtime-message-published',
    });
    expect(publish.responses['201']!.headers).to.have.property('Preference-Applied');
    expect(publish.responses['202']!.content!['application/json']!.schema).to.deep.equal({
      $ref: '#/components/schemas/realtime-message-accepted',
    });
    const published = doc.components.schemas!['realtime-message-published'] as { required: string[] };
    expect(published.required).to.deep.equal(['id', 'channel', 'offset', 'epoch']);
  });

  it('serves the decisions.md operations, each as an operation and a tool of the same name', () => {
    const ids = new Set(operationsOf(doc).map(({ op }) => op.operationId));
    const decided = [
      'organization_public-keys_create',
      'organization_public-keys_list',
      'organization_public-keys_update-scope',
      'organization_public-keys_revoke',
      'organization_public-keys_import',
      'mail_apikey_create',
      'mail_apikey_list',
      'mail_apikey_delete',
      'mail_domain_create',
      'mail_domain_list',
      'mail_domain_get',
      'mail_domain_verify',
      'mail_domain_delete',
      'mail_domain_update',
      'mail_email_send',
      'mail_email_get',
      'mail_suppression_list',
      'mail_suppression_create',
      'mail_suppression_delete',
      'mail_webhook_create',
      'mail_webhook_list',
      'mail_webhook_get',
      'mail_webhook_update',
      'mail_webhook_delete',
      'mail_webhook_deliveries_list',
      'realtime_apikey_create',
      'realtime_apikey_list',
      'realtime_apikey_delete',
      'realtime_namespace_put',
      'realtime_namespace_list',
      'realtime_namespace_get',
      'realtime_namespace_delete',
      'realtime_token_issue',
      'realtime_message_publish',
      'realtime_history_get',
      'realtime_presence_get',
    ];
    expect(decided.filter((id) => !ids.has(id))).to.deep.equal([]);
  });
});
