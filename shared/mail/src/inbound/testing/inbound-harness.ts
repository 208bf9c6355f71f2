// What the receiver's integration tests share: the test database with a product and seeded
// emails, a topic of their own on the real Kafka with a consumer reading it back, a real
// publisher, and the receiver's counters.
import { randomUUID } from 'node:crypto';
import { createLogger, type Logger } from '@lattice/core';
import { ManualClock, testConfig, uniqueName } from '@lattice/core/testing';
import { createKafka, createRecordProducer, ensureTopics, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import type { Admin, Consumer, Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import {
  createMailEventPublisher,
  type MailEventPublisher,
  type MailEventRecord,
  mailEventCodec,
} from '../../events/mail-event.ts';
import { verpAddress } from '../../return-path.ts';

export const SENDING_DOMAIN = 'northwind.test';
export const START_MS = 1_795_500_000_000;

export interface InboundHarness {
  db: Db;
  kafka: Kafka;
  logger: Logger;
  topic: string;
  clock: ManualClock;
  /** Events read back from the topic, in arrival order. */
  seen: MailEventRecord[];
  publisher: MailEventPublisher;
  newProduct(): Promise<string>;
  /** Inserts a delivered email of the product to `recipient`; answers its id. */
  seedEmail(productId: string, recipient: string): Promise<string>;
  /** Records on the topic so far (every partition's high watermark, summed). */
  topicRecords(): Promise<number>;
  /** The events of one email read back, once `count` of them arrived. */
  eventsOf(emailId: string, count?: number): Promise<MailEventRecord[]>;
  close(): Promise<void>;
}

export function verpOf(emailId: string): string {
  return verpAddress(emailId, SENDING_DOMAIN);
}

export async function startInboundHarness(label: string): Promise<InboundHarness> {
  const config = testConfig();
  const logger = createLogger({ name: label, level: config.logLevel });
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  await migrateLatest(db, logger);
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: label, logger });
  const admin: Admin = kafka.admin();
  await admin.connect();
  const topic = topicName(`${uniqueName(label)}.`, TOPIC_CATALOG.mailEvents.name);
  await ensureTopics({ admin, names: [topic], partitions: 3, replicationFactor: 1, logger });
  const publisher = createMailEventPublisher({ producer: () => createRecordProducer(kafka), topic, logger });
  const codec = mailEventCodec();
  const seen: MailEventRecord[] = [];
  const consumer: Consumer = kafka.consumer({ groupId: uniqueName(`${label}-read`) });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (message.value) seen.push(codec.decode(message.value));
    },
  });

  return {
    db,
    kafka,
    logger,
    topic,
    clock: new ManualClock(START_MS),
    seen,
    publisher,
    async newProduct() {
      return (await bootstrapProduct(db, { name: uniqueName(label) })).product_id;
    },
    async seedEmail(productId, recipient) {
      const id = randomUUID();
      await db('mail_emails').insert({
        id,
        product_id: productId,
        environment: 'production',
        from_header: `Northwind <hello@${SENDING_DOMAIN}>`,
        to_header: recipient,
        to_address: recipient.toLowerCase(),
        subject: 'Seeded by the inbound receiver tests',
        text: 'Hello',
        message_id: `<${id}@${SENDING_DOMAIN}>`,
        status: 'delivered',
        send_state: 'done',
        send_attempts: 1,
        provider_message_id: `queued-${id.slice(0, 8)}`,
      });
      return id;
    },
    async topicRecords() {
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
    },
    async eventsOf(emailId, count = 1) {
      // Waits for records the receiver has already seen acknowledged (it answered 250 after the
      // ack): only the consumer's own pace is waited for, bounded by the test's timeout.
      for (;;) {
        const events = seen.filter((e) => e.email_id === emailId);
        if (events.length >= count) return events;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      await consumer.disconnect().catch(() => undefined);
      await publisher.close();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
      await db.destroy();
    },
  };
}

/** The value of a counter series of the registry (0 when never incremented). */
export async function counterValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  const match = values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return match?.value ?? 0;
}
