import { expect } from 'chai';
import { EDGE_OPERATIONS } from './generated/edge-operations.ts';
import { MANAGEMENT_OPERATIONS } from './generated/management-operations.ts';
import { Lattice } from './lattice.ts';
import { LatticeEdge } from './lattice-edge.ts';
import { edgeMethodPath, methodPath } from './naming.ts';

const methodAt = (root: object, path: string[]): unknown =>
  path.reduce<unknown>((node, name) => (node as Record<string, unknown> | undefined)?.[name], root);

describe('naming: one method per operation, where its operationId says', () => {
  // shared/sdk/README.md, its examples verbatim, and the rule on the others.
  const examples: Array<[string, string]> = [
    ['realtime_message_publish', 'realtime.message.publish'],
    ['organization_public-keys_update-scope', 'organization.publicKeys.updateScope'],
    ['mail_webhook_deliveries_list', 'mail.webhook.deliveries.list'],
    ['organization_member-tokens_create', 'organization.memberTokens.create'],
    ['organization_audit-log_list', 'organization.auditLog.list'],
    ['mail_apikey_create', 'mail.apikey.create'],
    ['mail_webhook_delivery_retry', 'mail.webhook.delivery.retry'],
    ['organization_product_get', 'organization.product.get'],
  ];
  for (const [operationId, path] of examples) {
    it(`${operationId} → lattice.${path}`, () => {
      expect(methodPath(operationId).join('.')).to.equal(path);
      expect(MANAGEMENT_OPERATIONS.map((op) => op.id)).to.include(operationId);
    });
  }

  const edgeExamples: Array<[string, string]> = [
    ['public_realtime_token_issue', 'realtime.token.issue'],
    ['public_mail_email_send', 'mail.email.send'],
    ['public_realtime_presence_stats_get', 'realtime.presence.stats.get'],
  ];
  for (const [operationId, path] of edgeExamples) {
    it(`${operationId} → edge.${path}`, () => {
      expect(edgeMethodPath(operationId).join('.')).to.equal(path);
      expect(EDGE_OPERATIONS.map((op) => op.id)).to.include(operationId);
    });
  }

  it('refuses names that are not an area and a method', () => {
    for (const bad of ['publish', 'Realtime_publish', 'a__b', 'a_b-'])
      expect(() => methodPath(bad)).to.throw();
    expect(() => edgeMethodPath('realtime_token_issue')).to.throw();
  });

  for (const [client, operations, pathOf, instance] of [
    ['Lattice', MANAGEMENT_OPERATIONS, methodPath, new Lattice({ apiKey: 'lmt_x', baseUrl: 'http://x' })],
    [
      'LatticeEdge',
      EDGE_OPERATIONS,
      edgeMethodPath,
      new LatticeEdge({ publicKey: 'lpk_x', productId: 'p', baseUrl: 'http://x' }),
    ],
  ] as const) {
    it(`${client}: every operation id is unique and has a method of its own`, () => {
      const ids = operations.map((op) => op.id);
      expect(new Set(ids).size).to.equal(ids.length);
      const paths = operations.map((op) => pathOf(op.id).join('.'));
      expect(new Set(paths).size).to.equal(paths.length);
      for (const op of operations) {
        expect(methodAt(instance, pathOf(op.id)), op.id).to.be.a('function');
      }
    });
  }

  it('a client reads its defaults from the environment, then the local API', () => {
    const saved = { key: process.env.LATTICE_API_KEY, url: process.env.LATTICE_BASE_URL };
    const restore = (name: string, value: string | undefined) => {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    };
    try {
      process.env.LATTICE_API_KEY = 'lmt_env';
      process.env.LATTICE_BASE_URL = 'http://env.test:1';
      expect(new Lattice().baseUrl).to.equal('http://env.test:1');
      delete process.env.LATTICE_BASE_URL;
      expect(new Lattice().baseUrl).to.equal('http://127.0.0.1:4000');
      delete process.env.LATTICE_API_KEY;
      expect(() => new Lattice()).to.throw(TypeError, /apiKey/);
    } finally {
      restore('LATTICE_API_KEY', saved.key);
      restore('LATTICE_BASE_URL', saved.url);
    }
  });
});
