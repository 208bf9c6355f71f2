// Two live owners of one endpoint at once (the overlap a rebalance can make) on real PostgreSQL:
// both make the attempt, the fence on `attempts` lets exactly one outcome in, and the delivery
// counts one attempt. The loser's outcome is counted as overtaken, not stored.
import { createLogger, nameBasedUuid, newId, parseSecretKeys, sealSecret } from '@lattice/core';
import { ManualScheduler, testConfig, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import type { AttemptAnswer } from './delivery-logic.ts';
import { deliveryMetrics } from './delivery-metrics.ts';
import { createPostgresDeliveryStore } from './delivery-store.postgres.ts';
import { createEndpointWorkers } from './endpoint-workers.ts';
import { mintWebhookSecret, WEBHOOK_SECRET_PURPOSE } from './webhook-signature.ts';

// The suite's keyring: a running platform refuses to start on a database holding values it cannot open.
const keyring = parseSecretKeys(testConfig().secretKeys);

describe('webhook endpoint loops: two live owners (PostgreSQL)', () => {
  const config = testConfig();
  let db: Db;
  let productId: string;

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, createLogger({ name: 't', level: 'silent' }));
    productId = (await bootstrapProduct(db, { name: uniqueName('webhook-owners') })).product_id;
  });
  after(() => db.destroy());

  it('both send the attempt; exactly one outcome is stored and the attempt counts once', async () => {
    const endpointId = newId();
    await db('mail_webhook_endpoints').insert({
      id: endpointId,
      product_id: productId,
      url: 'https://receiver.example/hook',
      events: ['email.delivered'],
      secret_sealed: sealSecret(keyring, WEBHOOK_SECRET_PURPOSE, mintWebhookSecret()),
    });
    const eventId = newId();
    const deliveryId = nameBasedUuid(eventId, endpointId);
    await db('mail_webhook_deliveries').insert({
      id: deliveryId,
      endpoint_id: endpointId,
      product_id: productId,
      event_id: eventId,
      event_type: 'email.delivered',
      payload: '{}',
      next_attempt_at: new Date(Date.now() - 1_000),
    });

    const answers: Array<(a: AttemptAnswer) => void> = [];
    const sent: string[] = [];
    const owner = (name: string) => {
      const registry = new Registry();
      const workers = createEndpointWorkers({
        store: createPostgresDeliveryStore(db),
        poster: {
          post: (_url, headers) =>
            new Promise((resolve) => {
              sent.push(`${name}:${headers['webhook-id']}`);
              answers.push(resolve);
            }),
        },
        keyring,
        schedule: { retryDelaysMs: [1_000, 1_000, 1_000, 1_000] },
        scheduler: new ManualScheduler(Date.now()),
        logger: createLogger({ name, level: 'silent' }),
        metrics: deliveryMetrics(registry),
      });
      workers.own([0]);
      return { workers, registry };
    };
    const a = owner('a');
    const b = owner('b');
    a.workers.wake(endpointId, 0);
    b.workers.wake(endpointId, 0);
    while (answers.length < 2) await new Promise((r) => setTimeout(r, 10));
    expect(sent.sort()).to.deep.equal([`a:${deliveryId}`, `b:${deliveryId}`]);

    const ok: AttemptAnswer = { ok: true, responseStatus: 204, error: null, retryAfterMs: null };
    for (const answer of answers) answer(ok);
    await a.workers.close();
    await b.workers.close();

    const row = await db('mail_webhook_deliveries').where({ id: deliveryId }).first();
    expect(row).to.include({ status: 'succeeded', attempts: 1, response_status: 204 });
    const overtaken = async (r: Registry) =>
      (await r.getSingleMetric('lattice_mail_webhook_attempts_overtaken_total')!.get()).values[0]?.value ?? 0;
    expect((await overtaken(a.registry)) + (await overtaken(b.registry))).to.equal(1);
  });
});
