// The mail sender's sweeps on real PostgreSQL and Kafka, two processes' worth at once: each due
// retry and each orphaned accept is claimed by exactly one sweep and produced once with the right
// attempt; a claimed retry whose record never went out is produced again after the grace; nothing
// that is not due or not old enough is touched. Time is a manual clock.
import { createLogger } from '@lattice/core';
import { ManualClock, testConfig, uniqueName } from '@lattice/core/testing';
import {
  createKafka,
  createRecordProducer,
  ensureTopics,
  type RecordProducer,
  TOPIC_CATALOG,
  topicName,
} from '@lattice/kafka';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { expect } from 'chai';
import type { Kafka } from 'kafkajs';
import { type MailOutboundRecord, mailOutboundCodec } from '../emails/outbound-record.ts';
import { mailEventCodec } from '../events/mail-event.ts';
import { insertTestEmail } from '../testing.ts';
import { createSenderSweeps } from './sender-sweeps.ts';

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const GRACE_MS = 120_000;

describe('mail sender sweeps (PostgreSQL, Kafka)', function () {
  this.timeout(60_000);
  const config = testConfig();
  const logger = createLogger({ name: 'sweeps', level: 'silent' });
  const prefix = `${uniqueName('mail-sweeps')}.`;
  const outbound = topicName(prefix, TOPIC_CATALOG.mailOutbound.name);
  const events = topicName(prefix, TOPIC_CATALOG.mailEvents.name);
  let db: Db;
  let kafka: Kafka;
  let producer: RecordProducer;
  let productId: string;
  const clock = new ManualClock(T0);

  before(async () => {
    db = createDb({ databaseUrl: config.databaseUrl });
    await migrateLatest(db, logger);
    productId = (await bootstrapProduct(db, { name: uniqueName('mail-sweeps') })).product_id;
    kafka = createKafka({ brokers: config.kafkaBrokers, clientId: prefix, logger });
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics({ admin, names: [outbound, events], partitions: 1, replicationFactor: 1, logger });
    await admin.disconnect();
    producer = await createRecordProducer(kafka);
  });
  after(async () => {
    await producer?.disconnect();
    await db?.destroy();
  });

  const sweeps = () =>
    createSenderSweeps({
      db,
      clock,
      producer,
      outboundTopic: outbound,
      outboundCodec: mailOutboundCodec(),
      eventsTopic: events,
      eventsCodec: mailEventCodec(),
      orphanGraceMs: GRACE_MS,
      productIds: [productId],
    });

  /** Every record on the outbound topic so far, read from the start by a fresh group. */
  async function outboundRecords(): Promise<MailOutboundRecord[]> {
    const codec = mailOutboundCodec();
    const admin = kafka.admin();
    await admin.connect();
    const [end] = await admin.fetchTopicOffsets(outbound);
    await admin.disconnect();
    const total = Number(end!.high);
    const seen: MailOutboundRecord[] = [];
    if (total === 0) return seen;
    const consumer = kafka.consumer({ groupId: uniqueName('sweeps-reader') });
    await consumer.connect();
    await consumer.subscribe({ topic: outbound, fromBeginning: true });
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(codec.decode(message.value!));
          if (seen.length >= total) resolve();
        },
      });
    });
    await consumer.disconnect();
    return seen;
  }

  async function emailIn(state: Record<string, unknown>): Promise<string> {
    const id = await insertTestEmail(db, { productId });
    await db('mail_emails').where({ id }).update(state);
    return id;
  }

  it('claims each due retry once across two sweeps, produces attempt n + 1, and re-produces a claim left unproduced after the grace', async () => {
    const due = await Promise.all(
      [1, 2, 3].map((attempts) =>
        emailIn({ send_state: 'deferred', send_attempts: attempts, send_next_attempt_at: new Date(T0 - 1) }),
      ),
    );
    const later = await emailIn({
      send_state: 'deferred',
      send_attempts: 1,
      send_next_attempt_at: new Date(T0 + 60_000),
    });
    const [a, b] = await Promise.all([sweeps().retries(), sweeps().retries()]);
    expect(a + b, 'each due row claimed by one sweep').to.equal(3);
    const records = await outboundRecords();
    expect(records.map((r) => [r.email_id, r.attempt]).sort()).to.deep.equal(
      due.map((id, i) => [id, i + 2]).sort(),
    );
    const rows = (await db('mail_emails')
      .whereIn('id', [...due, later])
      .select('id', 'send_state')) as Array<{
      id: string;
      send_state: string;
    }>;
    expect(rows.find((r) => r.id === later)!.send_state, 'not due yet').to.equal('deferred');
    expect(rows.filter((r) => due.includes(r.id)).every((r) => r.send_state === 'requeued')).to.equal(true);

    // Nothing more until the grace has passed; then the claims still requeued go out again.
    expect(await sweeps().retries()).to.equal(0);
    clock.advance(GRACE_MS + 1);
    await db('mail_emails').where({ id: due[0] }).update({ send_state: 'sending' }); // the sender took it
    expect(await sweeps().retries(), 'the later one is due now; two claims were left requeued').to.equal(3);
    const again = (await outboundRecords()).slice(3);
    expect(again.map((r) => [r.email_id, r.attempt]).sort()).to.deep.equal(
      [
        [due[1], 3],
        [due[2], 4],
        [later, 2],
      ].sort(),
    );
  });

  it('queues an accept left unqueued once it is older than the grace, once per grace, and never one being sent', async () => {
    clock.set(T0 + 10 * GRACE_MS);
    const old = new Date(clock.nowMs() - GRACE_MS - 1);
    const orphan = await emailIn({ created_at: old });
    const young = await emailIn({ created_at: new Date(clock.nowMs() - 1000) });
    const taken = await emailIn({ created_at: old, send_state: 'sending', send_attempts: 1 });
    const before = (await outboundRecords()).length;
    const [a, b] = await Promise.all([sweeps().orphans(), sweeps().orphans()]);
    expect(a + b).to.equal(1);
    const produced = (await outboundRecords()).slice(before);
    expect(produced.map((r) => [r.email_id, r.attempt])).to.deep.equal([[orphan, 1]]);
    expect(await sweeps().orphans(), 'claimed: not again within the grace').to.equal(0);
    expect([young, taken]).to.not.include(produced[0]!.email_id);
    clock.advance(GRACE_MS + 1);
    expect(await sweeps().orphans(), 'still unqueued after another grace: produced again').to.be.at.least(1);
  });
});
