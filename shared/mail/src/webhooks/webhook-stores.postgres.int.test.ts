// The fan-out's and the endpoint actor's PostgreSQL statements on a real database: who gets a
// delivery, idempotence and order, the head read, the fenced outcome with the endpoint's count,
// the auto-disable threshold, failing without a request, and the due scan.
import { createLogger, nameBasedUuid, newId } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import type { MailEventRecord, MailEventType } from '../events/mail-event.ts';
import type { AttemptDecision } from './delivery-logic.ts';
import { createPostgresDeliveryStore } from './delivery-store.postgres.ts';
import { createPostgresFanoutStore } from './fanout-store.postgres.ts';
import { webhookPayload } from './webhook-events.ts';

const NOW = Date.now();

describe('webhook stores (PostgreSQL)', () => {
  const config = testConfig();
  let db: Db;
  let productId: string;
  let otherProductId: string;

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, createLogger({ name: 't', level: 'silent' }));
    productId = (await bootstrapProduct(db, { name: uniqueName('webhook-stores') })).product_id;
    otherProductId = (await bootstrapProduct(db, { name: uniqueName('webhook-stores-other') })).product_id;
  });
  after(() => db.destroy());

  async function endpoint(
    over: Partial<{
      product_id: string;
      events: string[];
      enabled: boolean;
      deleted_at: Date;
      created_at: Date;
    }> = {},
  ): Promise<string> {
    const id = newId();
    await db('mail_webhook_endpoints').insert({
      id,
      product_id: productId,
      url: 'https://receiver.example/hook',
      events: ['email.delivered', 'email.bounced'],
      secret_sealed: 'sealed',
      created_at: new Date(NOW - 60_000),
      ...over,
    });
    return id;
  }

  const event = (type: MailEventType, over: Partial<MailEventRecord> = {}): MailEventRecord => ({
    event_id: newId(),
    product_id: productId,
    email_id: newId(),
    type,
    recipient: 'ann@example.org',
    bounce_kind: type === 'bounced' ? 'hard' : null,
    reason: null,
    provider_message_id: 'q1',
    link: null,
    occurred_at_ms: NOW,
    ...over,
  });
  const fan = (e: MailEventRecord, recordedAtMs = NOW) => ({
    event: e,
    payload: webhookPayload(e),
    recordedAtMs,
  });

  describe('fan-out', () => {
    it('records one pending delivery per subscribed enabled live endpoint created before the event', async () => {
      const product = (await bootstrapProduct(db, { name: uniqueName('fanout') })).product_id;
      const subscribed = await endpoint({ product_id: product });
      await endpoint({ product_id: product, events: ['email.opened'] });
      await endpoint({ product_id: product, enabled: false });
      await endpoint({ product_id: product, deleted_at: new Date() });
      await endpoint({ product_id: product, created_at: new Date(NOW + 60_000) });
      await endpoint({ product_id: otherProductId });
      const e = event('delivered', { product_id: product });
      const woken = await createPostgresFanoutStore(db).record([fan(e)]);
      expect(woken.map((w) => w.endpoint_id)).to.deep.equal([subscribed]);
      expect(woken[0]).to.include({
        delivery_id: nameBasedUuid(e.event_id, subscribed),
        product_id: product,
        event_type: 'email.delivered',
      });
      const row = await db('mail_webhook_deliveries').where({ id: woken[0]!.delivery_id }).first();
      expect(row).to.include({ status: 'pending', attempts: 0, max_attempts: 5, event_id: e.event_id });
      expect(JSON.parse(row.payload)).to.deep.equal(JSON.parse(webhookPayload(e)));
    });

    it('is idempotent: a replay records nothing new and wakes the still-pending ones again', async () => {
      const product = (await bootstrapProduct(db, { name: uniqueName('fanout-replay') })).product_id;
      const a = await endpoint({ product_id: product });
      const b = await endpoint({ product_id: product });
      const e = event('bounced', { product_id: product });
      const store = createPostgresFanoutStore(db);
      const first = await store.record([fan(e)]);
      await db('mail_webhook_deliveries')
        .where({ id: nameBasedUuid(e.event_id, a) })
        .update({ status: 'succeeded' });
      const again = await store.record([fan(e)]);
      expect(first.map((w) => w.endpoint_id).sort()).to.deep.equal([a, b].sort());
      expect(again.map((w) => w.delivery_id)).to.deep.equal([nameBasedUuid(e.event_id, b)]);
      expect(again[0]!.seq).to.equal(first.find((w) => w.endpoint_id === b)!.seq);
      expect(await db('mail_webhook_deliveries').where({ event_id: e.event_id }).count()).to.deep.equal([
        { count: '2' },
      ]);
    });

    it('orders an endpoint’s deliveries by the events’ order (seq)', async () => {
      const product = (await bootstrapProduct(db, { name: uniqueName('fanout-order') })).product_id;
      const a = await endpoint({
        product_id: product,
        events: ['email.delivered', 'email.opened', 'email.clicked'],
      });
      const emailId = newId();
      const events = (['delivered', 'opened', 'clicked'] as const).map((t) =>
        // Question marks and quotes in the payload are data, never placeholders or SQL.
        event(t, {
          product_id: product,
          email_id: emailId,
          reason: `what's this? $1 ?? '`,
          ...(t === 'clicked' ? { link: 'https://x.test/?utm_source=mail&q=?' } : {}),
        }),
      );
      const woken = await createPostgresFanoutStore(db).record(events.map((e) => fan(e)));
      const rows = await db('mail_webhook_deliveries').where({ endpoint_id: a }).orderBy('seq');
      expect(rows.map((r) => r.event_type)).to.deep.equal([
        'email.delivered',
        'email.opened',
        'email.clicked',
      ]);
      expect(woken.map((w) => w.seq)).to.deep.equal(rows.map((r) => Number(r.seq)));
      expect(JSON.parse(rows[2].payload).data).to.include({
        link: 'https://x.test/?utm_source=mail&q=?',
        reason: `what's this? $1 ?? '`,
      });
    });
  });

  describe('endpoint actor statements', () => {
    const store = () => createPostgresDeliveryStore(db);
    async function delivery(endpointId: string, over: Record<string, unknown> = {}): Promise<string> {
      const e = event('delivered');
      const id = nameBasedUuid(e.event_id, endpointId);
      await db('mail_webhook_deliveries').insert({
        id,
        endpoint_id: endpointId,
        product_id: productId,
        event_id: e.event_id,
        event_type: 'email.delivered',
        payload: webhookPayload(e),
        next_attempt_at: new Date(NOW),
        ...over,
      });
      return id;
    }
    const failedForGood: AttemptDecision = {
      status: 'failed',
      nextAttemptAtMs: null,
      responseStatus: 500,
      lastError: 'HTTP 500',
      endpoint: 'failed_for_good',
    };

    it('reads the lowest-seq pending delivery with its endpoint', async () => {
      const ep = await endpoint();
      const done = await delivery(ep, { status: 'succeeded' });
      const first = await delivery(ep);
      await delivery(ep);
      const head = await store().head(ep);
      expect(head!.delivery.id).to.equal(first).and.not.equal(done);
      expect(head!.endpoint).to.include({ id: ep, live: true, url: 'https://receiver.example/hook' });
      expect(await store().head(await endpoint())).to.equal(null);
      expect(await store().head(newId())).to.equal(null);
    });

    it('stores an outcome once, fenced on the attempts read', async () => {
      const ep = await endpoint();
      const id = await delivery(ep);
      const retry: AttemptDecision = {
        status: 'pending',
        nextAttemptAtMs: NOW + 5_000,
        responseStatus: null,
        lastError: 'no answer within 10000 ms',
        endpoint: 'none',
      };
      const input = { deliveryId: id, endpointId: ep, seenAttempts: 0, attemptedAtMs: NOW, decision: retry };
      expect(await store().recordAttempt(input)).to.deep.equal({ recorded: true, disabledEndpoint: null });
      expect(await store().recordAttempt(input)).to.deep.equal({ recorded: false, disabledEndpoint: null });
      const row = await db('mail_webhook_deliveries').where({ id }).first();
      expect(row).to.include({
        attempts: 1,
        status: 'pending',
        response_status: null,
        last_error: retry.lastError,
      });
      expect(row.next_attempt_at.getTime()).to.equal(NOW + 5_000);
      expect(row.last_attempt_at.getTime()).to.equal(NOW);
    });

    it('disables the endpoint on the third delivery failed for good in a row, not before', async () => {
      const ep = await endpoint();
      for (let i = 1; i <= 3; i++) {
        const id = await delivery(ep, { attempts: 4 });
        const out = await store().recordAttempt({
          deliveryId: id,
          endpointId: ep,
          seenAttempts: 4,
          attemptedAtMs: NOW,
          decision: failedForGood,
        });
        expect(out.disabledEndpoint).to.equal(i === 3 ? 'failures' : null);
        const e = await db('mail_webhook_endpoints').where({ id: ep }).first();
        expect([e.consecutive_failures, e.enabled]).to.deep.equal([i, i < 3]);
      }
      expect((await db('mail_webhook_endpoints').where({ id: ep }).first()).disabled_reason).to.equal(
        'failures',
      );
    });

    it('a success resets the count; a 410 disables as gone', async () => {
      const ep = await endpoint();
      await db('mail_webhook_endpoints').where({ id: ep }).update({ consecutive_failures: 2 });
      const id = await delivery(ep);
      await store().recordAttempt({
        deliveryId: id,
        endpointId: ep,
        seenAttempts: 0,
        attemptedAtMs: NOW,
        decision: {
          status: 'succeeded',
          nextAttemptAtMs: null,
          responseStatus: 200,
          lastError: null,
          endpoint: 'reset',
        },
      });
      expect((await db('mail_webhook_endpoints').where({ id: ep }).first()).consecutive_failures).to.equal(0);
      const gone = await delivery(ep);
      const out = await store().recordAttempt({
        deliveryId: gone,
        endpointId: ep,
        seenAttempts: 0,
        attemptedAtMs: NOW,
        decision: { ...failedForGood, responseStatus: 410, lastError: 'HTTP 410', endpoint: 'gone' },
      });
      expect(out.disabledEndpoint).to.equal('gone');
      expect(await db('mail_webhook_endpoints').where({ id: ep }).first()).to.include({
        enabled: false,
        disabled_reason: 'gone',
      });
    });

    it('fails due pending deliveries without a request only while the endpoint is disabled or deleted', async () => {
      const ep = await endpoint();
      const a = await delivery(ep);
      const done = await delivery(ep, { status: 'succeeded' });
      expect(await store().failWithoutRequest(ep, NOW)).to.equal(0);
      await db('mail_webhook_endpoints').where({ id: ep }).update({ enabled: false });
      // Not due yet (an oldest delivery waiting for its retry): it waits on.
      expect(await store().failWithoutRequest(ep, NOW - 1)).to.equal(0);
      expect(await store().failWithoutRequest(ep, NOW)).to.equal(1);
      const rows = await db('mail_webhook_deliveries').whereIn('id', [a, done]).orderBy('seq');
      expect(rows.map((r) => [r.status, r.attempts, r.last_error, r.last_attempt_at])).to.deep.equal([
        ['failed', 0, 'endpoint disabled', null],
        ['succeeded', 0, null, null],
      ]);
      const deleted = await endpoint({ deleted_at: new Date() });
      const b = await delivery(deleted);
      expect(await store().failWithoutRequest(deleted, NOW)).to.equal(1);
      expect((await db('mail_webhook_deliveries').where({ id: b }).first()).last_error).to.equal(
        'endpoint deleted',
      );
    });

    it('lists endpoints whose oldest pending delivery is due, of the given products', async () => {
      const due = await endpoint();
      const later = await endpoint();
      await delivery(due, { next_attempt_at: new Date(NOW - 1) });
      await delivery(later, { next_attempt_at: new Date(NOW + 60_000) });
      // Held back behind the oldest: due by its own time, but the endpoint waits for the oldest.
      await delivery(later, { next_attempt_at: new Date(NOW - 60_000) });
      const found = await store().endpointsDue(NOW, 100_000);
      expect(found).to.include(due).and.not.include(later);
      expect(await store().endpointsDue(NOW, 100_000, [otherProductId])).to.not.include(due);
      expect(await store().endpointsDue(NOW, 100_000, [productId])).to.include(due);
    });
  });
});
