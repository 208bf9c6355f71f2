// The PostgreSQL DeliveryStore keeps the shared contract on a real database (each method is one
// statement: the head read, the fenced outcome with the endpoint's count, failing without a request,
// the due scan).
import { createLogger, nameBasedUuid, newId } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { describeDeliveryStore } from '../testing/delivery-store-conformance.ts';
import { createPostgresDeliveryStore } from './delivery-store.postgres.ts';

const NOW = 1_795_000_000_000;

describe('delivery store (PostgreSQL)', () => {
  const config = testConfig();
  let db: Db;
  let productId: string;

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, createLogger({ name: 't', level: 'silent' }));
    productId = (await bootstrapProduct(db, { name: uniqueName('delivery-store') })).product_id;
  });
  after(() => db.destroy());

  describeDeliveryStore('postgres', async () => ({
    store: createPostgresDeliveryStore(db),
    productId,
    async endpoint(over = {}) {
      const id = newId();
      await db('mail_webhook_endpoints').insert({
        id,
        product_id: productId,
        url: 'https://receiver.example/hook',
        events: ['email.delivered'],
        secret_sealed: 'sealed',
        enabled: over.enabled ?? true,
        deleted_at: over.deleted ? new Date() : null,
        consecutive_failures: over.consecutiveFailures ?? 0,
      });
      return id;
    },
    async delivery(endpointId, over = {}) {
      const eventId = newId();
      const id = nameBasedUuid(eventId, endpointId);
      await db('mail_webhook_deliveries').insert({
        id,
        endpoint_id: endpointId,
        product_id: productId,
        event_id: eventId,
        event_type: 'email.delivered',
        payload: '{}',
        status: over.status ?? 'pending',
        attempts: over.attempts ?? 0,
        next_attempt_at: new Date(over.nextAttemptAtMs ?? NOW),
      });
      return id;
    },
    async read(id) {
      const r = await db('mail_webhook_deliveries').where({ id }).first();
      return {
        status: r.status,
        attempts: r.attempts,
        nextAttemptAtMs: r.next_attempt_at?.getTime() ?? null,
        lastAttemptAtMs: r.last_attempt_at?.getTime() ?? null,
        responseStatus: r.response_status,
        lastError: r.last_error,
      };
    },
    async endpointState(id) {
      const e = await db('mail_webhook_endpoints').where({ id }).first();
      return { enabled: e.enabled, consecutiveFailures: e.consecutive_failures };
    },
    async setEnabled(id, enabled) {
      await db('mail_webhook_endpoints').where({ id }).update({ enabled });
    },
  }));
});
