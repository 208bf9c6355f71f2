// The fan-out's statements on a real database: who gets a delivery (subscribed, enabled, live,
// created by the event), idempotence on a replay, the order of `seq`, and payloads that are data.
import { createLogger, nameBasedUuid, newId, sleep } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { bootstrapProduct, createDb, type Db, isDataError, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import type { MailEventRecord, MailEventType } from '../events/mail-event.ts';
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

    it('counts an endpoint created up to 1 s after the event was recorded (clock skew), not later', async () => {
      const product = (await bootstrapProduct(db, { name: uniqueName('fanout-skew') })).product_id;
      const within = await endpoint({ product_id: product, created_at: new Date(NOW + 1_000) });
      await endpoint({ product_id: product, created_at: new Date(NOW + 1_001) });
      const woken = await createPostgresFanoutStore(db).record([
        fan(event('delivered', { product_id: product })),
      ]);
      expect(woken.map((w) => w.endpoint_id)).to.deep.equal([within]);
    });

    it('refuses an event whose ids PostgreSQL cannot read as a data error (the fan-out dead-letters it)', async () => {
      const err = await createPostgresFanoutStore(db)
        .record([fan(event('delivered', { product_id: 'not-a-uuid' }))])
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isDataError(err)).to.equal(true);
    });

    it('records deliveries of one endpoint by two fan-outs at once in commit order = seq order', async () => {
      const product = (await bootstrapProduct(db, { name: uniqueName('fanout-concurrent') })).product_id;
      const a = await endpoint({ product_id: product });
      // The first fan-out's statement is done but not committed (a transaction held open).
      const trx = await db.transaction();
      const first = await createPostgresFanoutStore(trx).record([
        fan(event('delivered', { product_id: product })),
      ]);
      let secondDone = false;
      const second = createPostgresFanoutStore(db)
        .record([fan(event('delivered', { product_id: product }))])
        .then((w) => {
          secondDone = true;
          return w;
        });
      try {
        await sleep(300);
        // The second waits on the endpoint's row: it cannot commit a later seq before the first.
        expect(secondDone).to.equal(false);
      } finally {
        await trx.commit();
      }
      const later = await second;
      expect(later.map((w) => w.endpoint_id)).to.deep.equal([a]);
      expect(later[0]!.seq).to.be.greaterThan(first[0]!.seq);
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
});
