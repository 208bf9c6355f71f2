// The email-state actor kind as the actors role registers it, on real Kafka (the catalog topics
// under a unique prefix) and PostgreSQL: events produced to `mail.events` reach each email's
// status, last event, recorded events and the suppression list, once.
import { createLogger, newId, sleep } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import {
  createKafka,
  createRecordProducer,
  metadataPlacement,
  type RecordProducer,
  TOPIC_CATALOG,
  topicName,
} from '@lattice/kafka';
import {
  createPostgresSuppressionStore,
  type MailEventRecord,
  type MailEventType,
  mailEventCodec,
  mailEventKey,
  readEmail,
} from '@lattice/mail';
import { insertTestEmail } from '@lattice/mail/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import type { Kafka } from 'kafkajs';
import type { Counter } from 'prom-client';
import { Registry } from 'prom-client';
import { type ActorsRole, catalogTopicNames, startActorsRole } from './actors-role.ts';
import { emailStateRegistration } from './email-state-actors.ts';

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

describe('email-state actors on mail.events (real Kafka and PostgreSQL)', function () {
  this.timeout(120_000);
  const config = testConfig();
  const logger = createLogger({ name: 'email-state-int', level: config.logLevel });
  const registry = new Registry();
  const prefix = `${uniqueName('mail-state')}.`;
  const topic = topicName(prefix, TOPIC_CATALOG.mailEvents.name);
  const codec = mailEventCodec();
  let db: Db;
  let kafka: Kafka;
  let role: ActorsRole | undefined;
  let producer: RecordProducer;
  let productId: string;

  const startRole = (metrics: Registry) =>
    startActorsRole({
      settings: {
        kafkaTopicPrefix: prefix,
        kafkaPartitions: 4,
        kafkaReplicationFactor: 1,
        sessionTimeoutMs: 10_000,
      },
      kafka,
      placement: metadataPlacement,
      logger,
      registry: metrics,
      kinds: [emailStateRegistration({ db, logger, registry: metrics })],
      jobs: [],
    });

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, createLogger({ name: 'migrate', level: 'warn' }));
    productId = (await bootstrapProduct(db, { name: uniqueName('mail-state') })).product_id;
    kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'email-state-int', logger });
    role = await startRole(registry);
    producer = await createRecordProducer(kafka);
  });
  after(async () => {
    await role?.stop();
    await producer?.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: catalogTopicNames(prefix) }).catch(() => undefined);
    await admin.disconnect();
    await db.destroy();
  });

  const event = (
    emailId: string | null,
    type: MailEventType,
    over: Partial<MailEventRecord> = {},
  ): MailEventRecord => ({
    event_id: newId(),
    product_id: productId,
    email_id: emailId,
    type,
    recipient: 'ann@example.org',
    bounce_kind: null,
    reason: null,
    provider_message_id: null,
    link: null,
    occurred_at_ms: T0,
    ...over,
  });
  let produced = 0;
  const produce = (...events: MailEventRecord[]) => {
    produced += events.length;
    return producer.send(
      topic,
      codec,
      events.map((value) => ({ key: mailEventKey(value), value })),
    );
  };
  const eventRows = (emailId: string) =>
    db('mail_email_events')
      .where({ email_id: emailId })
      .orderBy('occurred_at')
      .select('event_id', 'type', 'link');
  /** Resolves once the actor recorded `eventId`: every earlier record of its email is applied too. */
  const applied = (eventId: string) =>
    waitFor(
      `event ${eventId}`,
      async () => (await db('mail_email_events').where({ event_id: eventId })).length === 1,
    );
  const suppressionOf = (address: string) =>
    db('mail_suppressions').where({ product_id: productId, address }).first('reason', 'email_id');

  it('delivered then a hard bounce: bounced, and the recipient suppressed', async () => {
    const id = await insertTestEmail(db, { productId, to: 'Hard <Hard@Example.org>' });
    const bounce = event(id, 'bounced', {
      bounce_kind: 'hard',
      reason: '550 5.1.1 unknown',
      occurred_at_ms: T0 + 1,
    });
    await produce(event(id, 'delivered', { provider_message_id: 'Q1' }), bounce);
    await applied(bounce.event_id);
    const view = await readEmail(db, productId, id);
    expect(view?.status).to.equal('bounced');
    expect(view?.last_event).to.deep.equal({
      type: 'bounced',
      occurred_at: new Date(T0 + 1).toISOString(),
      bounce_kind: 'hard',
      reason: '550 5.1.1 unknown',
    });
    expect(await suppressionOf('hard@example.org')).to.deep.equal({ reason: 'hard_bounce', email_id: id });
    expect(await createPostgresSuppressionStore(db).isSuppressed(productId, 'HARD@example.org')).to.equal(
      true,
    );
  });

  it('a soft bounce changes nothing but the last event; a complaint suppresses and keeps the status', async () => {
    const soft = await insertTestEmail(db, { productId, to: 'soft@example.org' });
    const softBounce = event(soft, 'bounced', {
      bounce_kind: 'soft',
      reason: '452 full',
      occurred_at_ms: T0 + 1,
    });
    const complained = await insertTestEmail(db, { productId, to: 'spam@example.org' });
    const complaint = event(complained, 'complained', { occurred_at_ms: T0 + 2 });
    await produce(event(soft, 'delivered'), softBounce, event(complained, 'delivered'), complaint);
    await applied(softBounce.event_id);
    await applied(complaint.event_id);
    const softView = await readEmail(db, productId, soft);
    expect(softView?.status).to.equal('delivered');
    expect(softView?.last_event).to.include({ type: 'bounced', bounce_kind: 'soft', reason: '452 full' });
    expect(await suppressionOf('soft@example.org')).to.equal(undefined);
    const complainedView = await readEmail(db, productId, complained);
    expect(complainedView?.status).to.equal('delivered');
    expect(complainedView?.last_event?.type).to.equal('complained');
    expect(await suppressionOf('spam@example.org')).to.deep.equal({
      reason: 'complaint',
      email_id: complained,
    });
  });

  it('records one open of two, one click per distinct link, and a re-produced record once', async () => {
    const id = await insertTestEmail(db, { productId });
    const delivered = event(id, 'delivered');
    const open = event(id, 'opened', { occurred_at_ms: T0 + 1 });
    const clickA = event(id, 'clicked', { link: 'https://example.org/a', occurred_at_ms: T0 + 3 });
    const last = event(id, 'clicked', { link: 'https://example.org/b', occurred_at_ms: T0 + 5 });
    await produce(
      delivered,
      open,
      event(id, 'opened', { occurred_at_ms: T0 + 2 }),
      clickA,
      event(id, 'clicked', { link: 'https://example.org/a', occurred_at_ms: T0 + 4 }),
      delivered,
      clickA,
    );
    // In a later send (another batch, most likely): the same records again, then the last one.
    await produce(open, delivered, last);
    await applied(last.event_id);
    expect(await eventRows(id)).to.deep.equal([
      { event_id: delivered.event_id, type: 'delivered', link: null },
      { event_id: open.event_id, type: 'opened', link: null },
      { event_id: clickA.event_id, type: 'clicked', link: 'https://example.org/a' },
      { event_id: last.event_id, type: 'clicked', link: 'https://example.org/b' },
    ]);
    const view = await readEmail(db, productId, id);
    expect(view?.status).to.equal('delivered');
    expect(view?.last_event).to.include({ type: 'clicked', occurred_at: new Date(T0 + 5).toISOString() });
  });

  it('keeps the newest event by occurred_at as last_event when events arrive out of order', async () => {
    const id = await insertTestEmail(db, { productId });
    const newest = event(id, 'opened', { occurred_at_ms: T0 + 60_000 });
    const older = event(id, 'bounced', { bounce_kind: 'hard', reason: 'dsn', occurred_at_ms: T0 + 30_000 });
    const oldest = event(id, 'delivered', { occurred_at_ms: T0 });
    await produce(newest, older, oldest);
    await applied(oldest.event_id);
    const view = await readEmail(db, productId, id);
    expect(view?.status, 'a hard bounce stays a bounce whatever arrives after it').to.equal('bounced');
    expect(view?.last_event).to.deep.equal({
      type: 'opened',
      occurred_at: new Date(T0 + 60_000).toISOString(),
      bounce_kind: null,
      reason: null,
    });
    expect((await eventRows(id)).map((r) => r.type)).to.deep.equal(['delivered', 'bounced', 'opened']);
  });

  it('counts events matched to no email and events of an email with no row, recording nothing', async () => {
    const counter = () =>
      registry.getSingleMetric('lattice_mail_state_events_dropped_total') as Counter | undefined;
    const count = async (reason: string) =>
      (await counter()?.get())?.values.find((v) => v.labels.reason === reason)?.value ?? 0;
    const unmatched = event(null, 'bounced', { bounce_kind: 'hard', recipient: 'nobody@example.org' });
    const orphanId = newId();
    const orphan = event(orphanId, 'complained', { recipient: 'orphan@example.org' });
    await produce(unmatched, orphan);
    await waitFor(
      'both counted',
      async () => (await count('unmatched')) === 1 && (await count('unknown_email')) === 1,
    );
    expect(
      await db('mail_email_events').whereIn('event_id', [unmatched.event_id, orphan.event_id]),
    ).to.deep.equal([]);
    expect(await suppressionOf('nobody@example.org')).to.equal(undefined);
    expect(await suppressionOf('orphan@example.org')).to.equal(undefined);
  });

  it('changes nothing when the whole topic is consumed again (offsets lost): replays are skipped', async () => {
    const snapshot = async () => ({
      emails: await db('mail_emails')
        .where({ product_id: productId })
        .orderBy('id')
        .select('id', 'status', 'last_event_type', 'last_event_at', 'state_partition', 'state_offset'),
      events: await db('mail_email_events').where({ product_id: productId }).orderBy('event_id').select('*'),
      suppressions: await db('mail_suppressions')
        .where({ product_id: productId })
        .orderBy('address')
        .select('*'),
    });
    const before = await snapshot();
    expect(before.events.length).to.be.greaterThan(10);
    await role?.stop();
    role = undefined;
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.resetOffsets({ groupId: `${prefix}lattice-actors.email-state`, topic, earliest: true });
    } finally {
      await admin.disconnect();
    }
    const again = new Registry();
    role = await startRole(again);
    const handled = async () => {
      const metric = again.getSingleMetric('lattice_actor_records_total') as Counter | undefined;
      const values = (await metric?.get())?.values ?? [];
      return values.reduce((n, v) => (v.labels.topic === topic ? n + v.value : n), 0);
    };
    await waitFor(`${produced} records handled again`, async () => (await handled()) === produced);
    const skipped = (
      await (again.getSingleMetric('lattice_actor_records_total') as Counter).get()
    ).values.find((v) => v.labels.outcome === 'replay_skipped')?.value;
    expect(skipped, 'most records are skipped by the stored position').to.be.greaterThan(produced / 2);
    expect(await snapshot()).to.deep.equal(before);
  });
});
