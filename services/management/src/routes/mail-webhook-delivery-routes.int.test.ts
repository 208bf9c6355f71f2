// An endpoint's deliveries through the management API, on real PostgreSQL and Kafka: the list
// (newest first, paged without gaps or repeats, both sides of the limit bounds), the operator
// actions (retry, recover, test) and the wake records they put on `mail.webhook-deliveries`,
// read back with a consumer of the test's own topic.
import { createLogger, type ErrorBody, nameBasedUuid } from '@lattice/core';
import { uniqueName } from '@lattice/core/testing';
import { createKafka, ensureTopics, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { type WebhookDeliveryRecord, webhookDeliveryCodec } from '@lattice/mail';
import { insertTestWebhookDelivery, type TestWebhookDelivery } from '@lattice/mail/testing';
import { expect } from 'chai';
import type { Admin, Consumer } from 'kafkajs';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import type { webhookDeliveryView } from './mail-webhook-delivery-routes.ts';

type DeliveryJson = ReturnType<typeof webhookDeliveryView>;
interface ListJson {
  data: DeliveryJson[];
  next_cursor: string | null;
}
interface Wake {
  key: string;
  record: WebhookDeliveryRecord;
}

const PATH = '/mail/webhooks';
const HOUR_MS = 3_600_000;

describe('mail webhook deliveries (management API, real PostgreSQL and Kafka)', function () {
  this.timeout(60_000);
  let t: TestManagement;
  let admin: Admin;
  let consumer: Consumer;
  let topic: string;
  const wakes: Wake[] = [];

  before(async () => {
    const prefix = `${uniqueName('whmgmt')}.`;
    t = await startTestManagement({ config: { kafkaTopicPrefix: prefix } });
    const logger = createLogger({ name: 'wh-deliveries', level: 'warn' });
    const kafka = createKafka({ brokers: t.config.kafkaBrokers, clientId: 'wh-deliveries-test', logger });
    admin = kafka.admin();
    await admin.connect();
    topic = topicName(prefix, TOPIC_CATALOG.webhookDeliveries.name);
    await ensureTopics({ admin, names: [topic], partitions: 3, replicationFactor: 1, logger });
    const codec = webhookDeliveryCodec();
    consumer = kafka.consumer({ groupId: uniqueName('wh-wakes') });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        // A plain object: avsc decodes into an instance of the record's own class.
        if (message.value)
          wakes.push({ key: String(message.key), record: { ...codec.decode(message.value) } });
      },
    });
  });
  after(async () => {
    await consumer?.disconnect().catch(() => undefined);
    await admin?.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin?.disconnect();
    await t?.close();
  });

  /** The wake records of a delivery once `count` arrived (the answer came after Kafka's ack). */
  async function wakesOf(deliveryId: string, count = 1): Promise<Wake[]> {
    for (;;) {
      const found = wakes.filter((w) => w.record.delivery_id === deliveryId);
      if (found.length >= count) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function newEndpoint(label: string, events = ['email.bounced', 'email.delivered']) {
    const p = await t.newProduct(label);
    const r = await t.call<{ id: string }>('POST', PATH, p.owner_token, {
      url: 'https://hooks.example.com/in',
      events,
    });
    expect(r.status, r.text).to.equal(201);
    return { token: p.owner_token, productId: p.product_id, id: r.json.id };
  }
  type Endpoint = Awaited<ReturnType<typeof newEndpoint>>;

  const insert = (e: Endpoint, d: Partial<TestWebhookDelivery> = {}) =>
    insertTestWebhookDelivery(t.db, { productId: e.productId, endpointId: e.id, ...d });
  const row = (id: string) => t.db('mail_webhook_deliveries').where({ id }).first();
  const list = (e: Endpoint, query = '') =>
    t.call<ListJson>('GET', `${PATH}/${e.id}/deliveries${query}`, e.token);
  const retry = (e: Endpoint, deliveryId: string) =>
    t.call<DeliveryJson>('POST', `${PATH}/${e.id}/deliveries/${deliveryId}/retry`, e.token);
  const recover = (e: Endpoint, body: unknown) =>
    t.call<{ recovered: number }>('POST', `${PATH}/${e.id}/recover`, e.token, body);
  const sendTest = (e: Endpoint, body: unknown = {}) =>
    t.call<DeliveryJson>('POST', `${PATH}/${e.id}/test`, e.token, body);
  const errorOf = (r: { json: unknown }) => (r.json as ErrorBody).error;

  describe('mail_webhook_deliveries_list', () => {
    it('lists newest first, 1 to 100 a page (default 50), pages without gaps or repeats', async () => {
      const e = await newEndpoint('whd-list');
      const other = { ...e, id: (await newEndpoint('whd-list-b')).id };
      // The same product's second endpoint: its deliveries are not this endpoint's.
      const sibling = await t.call<{ id: string }>('POST', PATH, e.token, {
        url: 'https://hooks.example.com/other',
        events: ['email.opened'],
      });
      const inserted: string[] = [];
      for (let i = 0; i < 120; i++) {
        inserted.push((await insert(e, { status: i % 3 === 0 ? 'failed' : 'succeeded', attempts: 1 })).id);
        if (i % 10 === 0) await insert({ ...e, id: sibling.json.id });
      }
      const newestFirst = [...inserted].reverse();

      const byDefault = await list(e);
      expect(byDefault.status, byDefault.text).to.equal(200);
      expect(byDefault.json.data.map((d) => d.id)).to.deep.equal(newestFirst.slice(0, 50));
      // The cursor is the last delivery shown, not the platform-wide sequence number.
      expect(byDefault.json.next_cursor).to.equal(newestFirst[49]);
      expect((await list(e, '?limit=1')).json.data.map((d) => d.id)).to.deep.equal(newestFirst.slice(0, 1));
      const hundred = await list(e, '?limit=100');
      expect(hundred.json.data.map((d) => d.id)).to.deep.equal(newestFirst.slice(0, 100));

      // Paged 7 at a time, with a delivery recorded after the first page: it does not shift them.
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: { json: ListJson } = await list(
          e,
          `?limit=7${cursor === null ? '' : `&cursor=${cursor}`}`,
        );
        seen.push(...page.json.data.map((d) => d.id));
        cursor = page.json.next_cursor;
        if (++pages === 1) await insert(e);
      } while (cursor !== null);
      expect(pages).to.equal(Math.ceil(120 / 7));
      expect(seen).to.deep.equal(newestFirst);

      for (const query of ['?limit=0', '?limit=101', '?limit=-1', '?limit=1.5', '?limit=x']) {
        const r = await list(e, query);
        expect(r.status, query).to.equal(400);
        expect(errorOf(r).fields, query).to.deep.equal([
          { path: 'query.limit', message: errorOf(r).fields![0]!.message },
        ]);
      }
      // Not a delivery of this endpoint (a sibling's, another product's, a malformed one): 400.
      const siblingDelivery = (await list({ ...e, id: sibling.json.id })).json.data[0]!.id;
      for (const query of [
        '?cursor=0',
        '?cursor=abc',
        '?cursor=',
        `?cursor=${'9'.repeat(37)}`,
        `?cursor=${siblingDelivery}`,
        '?since=1',
      ]) {
        const r = await list(e, query);
        expect(r.status, query).to.equal(400);
        expect(errorOf(r).code, query).to.equal('validation_error');
      }
      // Another product cannot read them; the other product's own endpoint lists nothing here.
      const foreign = await t.call(
        'GET',
        `${PATH}/${e.id}/deliveries`,
        (await t.newProduct('whd-x')).owner_token,
      );
      expect(foreign.status).to.equal(404);
      expect((await list(other)).status).to.equal(404);
    });

    it('shows each field of a delivery, timestamps as ISO strings or null', async () => {
      const e = await newEndpoint('whd-view');
      const created = new Date('2026-11-20T10:00:00.000Z');
      const attempted = new Date('2026-11-20T12:00:00.000Z');
      const failed = await insert(e, {
        eventType: 'email.complained',
        status: 'failed',
        attempts: 5,
        responseStatus: 401,
        lastError: 'HTTP 401',
        lastAttemptAt: attempted,
        createdAt: created,
      });
      const due = new Date('2026-11-20T12:05:00.000Z');
      const pending = await insert(e, { nextAttemptAt: due, createdAt: created });
      expect((await list(e)).json).to.deep.equal({
        data: [
          {
            id: pending.id,
            event_id: pending.eventId,
            event_type: 'email.delivered',
            status: 'pending',
            attempts: 0,
            last_attempt_at: null,
            response_status: null,
            last_error: null,
            next_attempt_at: due.toISOString(),
            created_at: created.toISOString(),
          },
          {
            id: failed.id,
            event_id: failed.eventId,
            event_type: 'email.complained',
            status: 'failed',
            attempts: 5,
            last_attempt_at: attempted.toISOString(),
            response_status: 401,
            last_error: 'HTTP 401',
            next_attempt_at: null,
            created_at: created.toISOString(),
          },
        ],
        next_cursor: null,
      });
      expect(failed.id).to.equal(nameBasedUuid(failed.eventId, e.id));
    });
  });

  describe('mail_webhook_delivery_retry', () => {
    it('puts a failed delivery back to pending with 5 new attempts and wakes its actor; 409 otherwise', async () => {
      const e = await newEndpoint('whd-retry');
      const pending = await insert(e);
      const succeeded = await insert(e, { status: 'succeeded', attempts: 1, responseStatus: 200 });
      const failed = await insert(e, {
        status: 'failed',
        attempts: 5,
        responseStatus: 500,
        lastError: 'HTTP 500',
        lastAttemptAt: new Date(Date.now() - HOUR_MS),
      });
      for (const [d, status] of [
        [pending, 'pending'],
        [succeeded, 'succeeded'],
      ] as const) {
        const r = await retry(e, d.id);
        expect(r.status, status).to.equal(409);
        expect(errorOf(r)).to.deep.equal({
          code: 'webhook_delivery_not_failed',
          step: 'webhooks',
          message: `Only a failed delivery can be retried; this one is ${status}`,
        });
      }

      const before = await row(failed.id);
      const r = await retry(e, failed.id);
      expect(r.status, r.text).to.equal(202);
      expect(r.json).to.deep.include({
        id: failed.id,
        status: 'pending',
        attempts: 5,
        response_status: 500,
        last_error: 'HTTP 500',
        last_attempt_at: (before.last_attempt_at as Date).toISOString(),
      });
      expect(Math.abs(Date.parse(r.json.next_attempt_at!) - Date.now())).to.be.below(60_000);
      expect(await row(failed.id)).to.include({ status: 'pending', attempts: 5, max_attempts: 10 });
      const [wake] = await wakesOf(failed.id);
      expect(wake).to.deep.equal({
        key: e.id,
        record: {
          delivery_id: failed.id,
          endpoint_id: e.id,
          product_id: e.productId,
          event_type: 'email.delivered',
          seq: failed.seq,
          recorded_at_ms: wake!.record.recorded_at_ms,
        },
      });
      // Pending now: not again. Failed for good again after its second round: 5 more.
      expect((await retry(e, failed.id)).status).to.equal(409);
      await t
        .db('mail_webhook_deliveries')
        .where({ id: failed.id })
        .update({ status: 'failed', attempts: 10 });
      expect((await retry(e, failed.id)).json.attempts).to.equal(10);
      expect(await row(failed.id)).to.include({ status: 'pending', max_attempts: 15 });
      await wakesOf(failed.id, 2);
      expect(await row(pending.id)).to.include({ status: 'pending', max_attempts: 5 });
      expect(await row(succeeded.id)).to.include({ status: 'succeeded', max_attempts: 5 });
    });

    it('answers 404 for a delivery of another endpoint, an unknown and a malformed id', async () => {
      const e = await newEndpoint('whd-retry-404');
      const f = await newEndpoint('whd-retry-404b');
      const theirs = await insert(f, { status: 'failed', attempts: 5 });
      for (const id of [theirs.id, '6f1c1a9e-8d0b-4f57-9a51-0c1d2e3f4a5b', 'nope']) {
        const r = await retry(e, id);
        expect(r.status, id).to.equal(404);
        expect(errorOf(r), id).to.include({ code: 'not_found', step: 'webhooks' });
      }
      // Through its own endpoint's path, but with another product's credential.
      const r = await t.call('POST', `${PATH}/${f.id}/deliveries/${theirs.id}/retry`, e.token);
      expect(r.status).to.equal(404);
      expect(await row(theirs.id)).to.include({ status: 'failed', max_attempts: 5 });
    });

    it('refuses on a disabled endpoint (409), and re-enabling queues nothing again', async () => {
      const e = await newEndpoint('whd-disabled');
      const failed = await insert(e, { status: 'failed', attempts: 5 });
      await t.call('PATCH', `${PATH}/${e.id}`, e.token, { enabled: false });
      for (const r of [
        await retry(e, failed.id),
        await recover(e, { since: new Date(Date.now() - HOUR_MS).toISOString() }),
        await sendTest(e),
      ]) {
        expect(r.status, r.text).to.equal(409);
        expect(errorOf(r)).to.include({ code: 'webhook_endpoint_disabled', step: 'webhooks' });
      }
      expect((await t.call('PATCH', `${PATH}/${e.id}`, e.token, { enabled: true })).status).to.equal(200);
      expect(await row(failed.id)).to.include({ status: 'failed', max_attempts: 5 });
      expect((await list(e)).json.data.map((d) => [d.id, d.status])).to.deep.equal([[failed.id, 'failed']]);
      expect(wakes.filter((w) => w.key === e.id)).to.deep.equal([]);
      expect((await retry(e, failed.id)).status).to.equal(202);
    });
  });

  describe('mail_webhook_recover', () => {
    it('puts back exactly the failed deliveries recorded within [since, until] and wakes the endpoint once', async () => {
      const e = await newEndpoint('whd-recover');
      const neighbour = await newEndpoint('whd-recover-n');
      const t0 = Date.now() - 5 * HOUR_MS;
      const at = (hours: number) => new Date(t0 + hours * HOUR_MS);
      const failedAt = (hours: number) => insert(e, { status: 'failed', attempts: 5, createdAt: at(hours) });
      const tooEarly = await failedAt(-1);
      const atSince = await failedAt(0);
      const inside = await failedAt(1);
      const insidePending = await insert(e, { createdAt: at(1) });
      const insideSucceeded = await insert(e, { status: 'succeeded', attempts: 2, createdAt: at(1) });
      const atUntil = await failedAt(2);
      const later = await failedAt(3);
      const elsewhere = await insert(neighbour, { status: 'failed', attempts: 5, createdAt: at(1) });

      const r = await recover(e, { since: at(0).toISOString(), until: at(2).toISOString() });
      expect(r.status, r.text).to.equal(202);
      expect(r.json).to.deep.equal({ recovered: 3 });
      for (const d of [atSince, inside, atUntil]) {
        expect(await row(d.id)).to.include({ status: 'pending', attempts: 5, max_attempts: 10 });
      }
      // One wake, named after the oldest recovered delivery: the loop reads the rest itself.
      const [wake] = await wakesOf(atSince.id);
      expect(wake!.record).to.include({ endpoint_id: e.id, seq: atSince.seq, product_id: e.productId });
      for (const d of [inside, atUntil])
        expect(wakes.some((w) => w.record.delivery_id === d.id)).to.equal(false);
      for (const d of [tooEarly, later, elsewhere]) {
        expect(await row(d.id)).to.include({ status: 'failed', max_attempts: 5 });
      }
      expect(await row(insidePending.id)).to.include({ status: 'pending', max_attempts: 5 });
      expect(await row(insideSucceeded.id)).to.include({ status: 'succeeded' });
      for (const d of [tooEarly, later, insidePending, insideSucceeded, elsewhere]) {
        expect(wakes.some((w) => w.record.delivery_id === d.id)).to.equal(false);
      }

      // Nothing failed is left in the range; without `until` the range ends now.
      expect(
        (await recover(e, { since: at(0).toISOString(), until: at(2).toISOString() })).json,
      ).to.deep.equal({
        recovered: 0,
      });
      expect((await recover(e, { since: at(2.5).toISOString() })).json).to.deep.equal({ recovered: 1 });
      expect(await row(later.id)).to.include({ status: 'pending' });
      expect(await row(tooEarly.id)).to.include({ status: 'failed' });
      // since equal to until is a range of one instant.
      expect(
        (await recover(e, { since: at(-1).toISOString(), until: at(-1).toISOString() })).json,
      ).to.deep.equal({ recovered: 1 });
    });

    it('refuses a range that is not one: since in the future, until before since, not date-times', async () => {
      const e = await newEndpoint('whd-recover-bad');
      const now = Date.now();
      const iso = (ms: number) => new Date(ms).toISOString();
      const cases: Array<[unknown, { path: string; message: string }[]]> = [
        [{ since: iso(now + 60_000) }, [{ path: 'body.since', message: 'must not be in the future' }]],
        [
          { since: iso(now - 60_000), until: iso(now - 120_000) },
          [{ path: 'body.until', message: 'must not be before since' }],
        ],
        [{ since: 'yesterday' }, [{ path: 'body.since', message: 'must match format "date-time"' }]],
        [
          { since: '2026-11-20T10:00:00' },
          [{ path: 'body.since', message: 'must match format "date-time"' }],
        ],
        [{ since: iso(now), until: 5 }, [{ path: 'body.until', message: 'must be string' }]],
        [{}, [{ path: 'body.since', message: 'is required' }]],
        [{ since: iso(now), status: 'failed' }, [{ path: 'body.status', message: 'is not allowed' }]],
      ];
      for (const [body, fields] of cases) {
        const r = await recover(e, body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(errorOf(r), JSON.stringify(body)).to.deep.include({ code: 'validation_error', fields });
      }
      // A future `until` is fine: nothing is recorded there yet.
      const ok = await recover(e, { since: iso(now - 60_000), until: iso(now + HOUR_MS) });
      expect(ok.status, ok.text).to.equal(202);
      expect(ok.json).to.deep.equal({ recovered: 0 });
    });
  });

  describe('mail_webhook_test', () => {
    it('records a pending delivery of a made-up event, shaped as the spec’s payload, and wakes the actor', async () => {
      const e = await newEndpoint('whd-test', ['email.bounced', 'email.delivered']);
      const before = Date.now();
      const r = await sendTest(e);
      expect(r.status, r.text).to.equal(202);
      const d = r.json;
      expect(d).to.deep.include({
        event_type: 'email.bounced',
        status: 'pending',
        attempts: 0,
        last_attempt_at: null,
        response_status: null,
        last_error: null,
      });
      expect(d.id).to.equal(nameBasedUuid(d.event_id, e.id));
      expect(d.next_attempt_at).to.be.a('string');

      const stored = await row(d.id);
      expect(stored).to.include({ status: 'pending', attempts: 0, max_attempts: 5, endpoint_id: e.id });
      const payload = JSON.parse(stored.payload as string);
      const occurredAt = payload.timestamp as string;
      expect(Date.parse(occurredAt)).to.be.within(before, Date.now());
      expect(payload).to.deep.equal({
        type: 'email.bounced',
        timestamp: occurredAt,
        data: {
          eventId: d.event_id,
          emailId: null,
          type: 'bounced',
          recipient: 'test@example.com',
          bounceKind: 'hard',
          reason: 'Test event sent by mail_webhook_test',
          providerMessageId: null,
          occurredAt,
        },
      });
      const [wake] = await wakesOf(d.id);
      expect(wake).to.deep.equal({
        key: e.id,
        record: {
          delivery_id: d.id,
          endpoint_id: e.id,
          product_id: e.productId,
          event_type: 'email.bounced',
          seq: Number(stored.seq),
          recorded_at_ms: wake!.record.recorded_at_ms,
        },
      });
      expect(wake!.record.recorded_at_ms).to.be.within(before, Date.now());
      expect((await list(e)).json.data).to.deep.equal([d]);
    });

    it('imitates any event named, subscribed or not; refuses unknown names', async () => {
      const e = await newEndpoint('whd-test-type', ['email.delivered']);
      const opened = await sendTest(e, { event_type: 'email.opened' });
      expect(opened.status, opened.text).to.equal(202);
      const openedPayload = JSON.parse((await row(opened.json.id)).payload as string);
      expect(openedPayload.type).to.equal('email.opened');
      expect(openedPayload.data).to.include({ type: 'opened', bounceKind: null, emailId: null });
      const clicked = await sendTest(e, { event_type: 'email.clicked' });
      expect(JSON.parse((await row(clicked.json.id)).payload as string).data).to.include({
        type: 'clicked',
        link: 'https://example.com/',
      });
      // Two tests of one type are two events, two deliveries.
      const again = await sendTest(e, { event_type: 'email.opened' });
      expect(again.json.id).to.not.equal(opened.json.id);
      expect((await sendTest(e)).json.event_type).to.equal('email.delivered');
      expect((await list(e)).json.data.map((d) => d.event_type)).to.deep.equal([
        'email.delivered',
        'email.opened',
        'email.clicked',
        'email.opened',
      ]);

      for (const [body, path] of [
        [{ event_type: 'email.sent' }, 'body.event_type'],
        [{ event_type: 'opened' }, 'body.event_type'],
        [{ event_type: null }, 'body.event_type'],
        [{ type: 'email.opened' }, 'body.type'],
      ] as const) {
        const r = await sendTest(e, body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(new Set(errorOf(r).fields!.map((f) => f.path)), JSON.stringify(body)).to.deep.equal(
          new Set([path]),
        );
      }
    });
  });
});
