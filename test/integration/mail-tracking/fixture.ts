// Fixture of the tracking and unsubscribe tests: a real public edge (edge role, PostgreSQL,
// Redis) serving the mail toolkit's tracking handlers, which publish to a real Kafka topic of
// the fixture's own and write the real PostgreSQL suppression list. The topic has one partition,
// so the events of a file are totally ordered and "nothing was recorded" is provable: a
// sentinel open published after the refused requests is consumed with nothing before it.
import { randomUUID } from 'node:crypto';
import {
  createLogger,
  generateSecretKeyEntry,
  type Logger,
  parseSecretKeys,
  type SecretKeyring,
} from '@lattice/core';
import { ManualClock, testConfig, uniqueName } from '@lattice/core/testing';
import type { RunningEdge } from '@lattice/edge';
import { createKafka, createRecordProducer, ensureTopics, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import {
  createMailEventPublisher,
  createPostgresSuppressionStore,
  createTrackingHandlers,
  createTrackingLinks,
  type MailEventPublisher,
  type MailEventRecord,
  mailEventCodec,
  type SuppressionStore,
  type TrackedEmail,
  type TrackingLinks,
  trackingMetrics,
} from '@lattice/mail';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { type EdgeSuite, edgeSuite, waitFor } from '../edge/harness.ts';

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
export const ONE_CLICK = 'List-Unsubscribe=One-Click';

export interface SuppressionRow {
  address: string;
  reason: string;
  email_id: string | null;
  created_at: Date;
}

export interface TrackingFixture {
  suite: EdgeSuite;
  logger: Logger;
  /** Two kids, k2 current: links are signed with k2, both verify. */
  keyring: SecretKeyring;
  /** The handlers' clock: `occurred_at_ms` of every event. */
  clock: ManualClock;
  /** The handlers' metrics registry. */
  registry: Registry;
  /** The fixture's mail.events topic and the publisher of the fixture's edge. */
  topic: string;
  events: MailEventPublisher;
  edge: RunningEdge;
  links: TrackingLinks;
  productId: string;
  newEmail(recipient?: string): TrackedEmail;
  /** Waits until `count` events of the email arrived; checks each was keyed by the email id. */
  eventsOf(emailId: string, count?: number): Promise<MailEventRecord[]>;
  /** Proves nothing was published for `emailIds` up to now (see the header). */
  expectNothingRecordedFor(emailIds: string[]): Promise<void>;
  suppressionsOf(productId: string): Promise<SuppressionRow[]>;
  /** Another edge whose handlers use these events and suppressions (failing ones), with its links. */
  startEdgeWith(deps: {
    events: MailEventPublisher;
    suppressions: SuppressionStore;
    registry: Registry;
  }): Promise<TrackingLinks>;
  close(): Promise<void>;
}

export async function startTrackingFixture(label: string): Promise<TrackingFixture> {
  const config = testConfig();
  const logger = createLogger({ name: label, level: config.logLevel });
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: label, logger });
  const topic = topicName(`${uniqueName(label)}.`, TOPIC_CATALOG.mailEvents.name);
  const keyring = parseSecretKeys(`${generateSecretKeyEntry('k2')},${generateSecretKeyEntry('k1')}`);
  const clock = new ManualClock(1_780_000_000_000);
  const registry = new Registry();
  const consumed: Array<{ key: string; event: MailEventRecord }> = [];

  const suite = await edgeSuite();
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics({ admin, names: [topic], partitions: 1, replicationFactor: 1, logger });
  const producer = await createRecordProducer(kafka);
  const events = createMailEventPublisher({ producer, topic, logger });
  const codec = mailEventCodec();
  const consumer = kafka.consumer({ groupId: uniqueName(label) });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      consumed.push({ key: message.key!.toString(), event: codec.decode(message.value!) });
    },
  });
  const suppressions = createPostgresSuppressionStore(suite.db);

  async function serve(deps: {
    events: MailEventPublisher;
    suppressions: SuppressionStore;
    registry: Registry;
  }): Promise<{ edge: RunningEdge; links: TrackingLinks }> {
    const handlers = createTrackingHandlers({
      keyring,
      events: deps.events,
      suppressions: deps.suppressions,
      clock,
      logger,
      metrics: trackingMetrics(deps.registry),
    });
    const edge = await suite.startEdge('production', { toolkits: [handlers] });
    const links = createTrackingLinks({
      keyring,
      publicUrls: { production: edge.url, development: 'http://dev.invalid' },
    });
    return { edge, links };
  }

  const { edge, links } = await serve({ events, suppressions, registry });
  const productId = await suite.newProduct();

  const newEmail = (recipient = `${uniqueName('r')}@example.org`): TrackedEmail => ({
    environment: 'production',
    productId,
    emailId: randomUUID(),
    recipient,
  });

  async function eventsOf(emailId: string, count = 1): Promise<MailEventRecord[]> {
    const of = () => consumed.filter((c) => c.event.email_id === emailId);
    await waitFor(
      async () => of().length,
      (n) => n >= count,
      30_000,
    );
    expect(of().map((c) => c.key)).to.satisfy((keys: string[]) => keys.every((k) => k === emailId));
    return of().map((c) => c.event);
  }

  return {
    suite,
    logger,
    keyring,
    clock,
    registry,
    topic,
    events,
    edge,
    links,
    productId,
    newEmail,
    eventsOf,
    async expectNothingRecordedFor(emailIds) {
      // The sentinel is the next record of the one partition: once it is consumed, so is
      // everything published before it.
      const sentinel = newEmail();
      expect((await fetch(links.openPixelUrl(sentinel))).status).to.equal(200);
      await eventsOf(sentinel.emailId);
      expect(consumed.filter((c) => emailIds.includes(c.event.email_id ?? ''))).to.deep.equal([]);
    },
    suppressionsOf: (id) =>
      suite
        .db('mail_suppressions')
        .where({ product_id: id })
        .select('address', 'reason', 'email_id', 'created_at'),
    startEdgeWith: async (deps) => (await serve(deps)).links,
    async close() {
      await consumer.disconnect();
      await events.close();
      await producer.disconnect();
      await suite.close();
      await admin.deleteTopics({ topics: [topic] }).catch(() => {});
      await admin.disconnect();
    },
  };
}
