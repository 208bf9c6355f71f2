// Growing the webhook delivery topic while deliveries are made (docs/operations.md "Changing the
// partition count"): 200 events × 8 endpoints, delivered by two `lattice start actors` processes,
// while `lattice topics scale mail.webhook-deliveries --partitions 24` moves endpoints to new
// partitions and one process is SIGKILLed (and replaced). Every event reaches every endpoint,
// and each endpoint first receives its deliveries in their order (the order they were recorded:
// events on different partitions of mail.events are fanned out independently, so that is not
// the publish order); a repeat of an id already received is the at-least-once duplicate a
// receiver drops by webhook-id.
import type { ChildProcess } from 'node:child_process';
import { noteInTestLog } from '@lattice/core/testing';
import { partitionOfKey, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { expect } from 'chai';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver.ts';
import { run, stopPlatform } from '../support/lattice-process.ts';
import { waitUntil } from '../support/wait-until.ts';
import { startActorsProcess } from './mail/mail-platform.ts';
import { startWebhookPlatform, type WebhookPlatform } from './webhooks/webhook-platform.ts';

const EVENTS = 200;
const ENDPOINTS = 8;
const FROM = 12;
const TO = 24;
const HOST_ENV = { ACTORS_METADATA_MAX_AGE_MS: '2000', KAFKA_PARTITION_PLAN_LEASE_MS: '5000' };

describe('partition scaling: the webhook delivery topic grows from 12 to 24 partitions under load', function () {
  this.timeout(300_000);
  let p: WebhookPlatform;
  let r: HttpsReceiver;
  const hosts: ChildProcess[] = [];

  before(async () => {
    p = await startWebhookPlatform({
      label: 'webhook-scale',
      actors: false,
      config: { kafkaPartitions: FROM },
    });
    r = await startHttpsReceiver({ handler: () => ({ status: 204, delayMs: 5 }) });
  });
  after(async () => {
    for (const h of hosts) if (h.exitCode === null && h.signalCode === null) await stopPlatform(h);
    await r?.close();
    await p?.close();
  });

  async function startHost(): Promise<ChildProcess> {
    const child = await startActorsProcess(p, { ...HOST_ENV, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    hosts.push(child);
    return child;
  }

  it('delivers every event to every endpoint, each endpoint’s first arrivals in delivery order', async () => {
    const endpoints: Array<{ id: string; path: string }> = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const e = await p.endpoint(r.url(`/e${i}`));
      endpoints.push({ id: e.id, path: `/e${i}` });
    }
    const topic = topicName(p.config.kafkaTopicPrefix, TOPIC_CATALOG.webhookDeliveries.name);
    const moving = endpoints.filter(
      (e) => partitionOfKey(topic, e.id, FROM) !== partitionOfKey(topic, e.id, TO),
    );
    noteInTestLog(`webhook scaling: ${moving.length} of ${ENDPOINTS} endpoints change partition`);

    const victim = await startHost();
    await startHost();
    const publishing = (async () => {
      for (let i = 0; i < EVENTS; i++) await p.publish('delivered', { recipient: `reader-${i}@example.net` });
    })();
    const total = EVENTS * ENDPOINTS;
    const firstArrivals = () => new Set(r.requests.map((q) => String(q.headers['webhook-id']))).size;

    await waitUntil('a fifth delivered', () => firstArrivals() >= total / 5, 120_000);
    const scaling = run(['topics', 'scale', 'mail.webhook-deliveries', '--partitions', String(TO)], {
      KAFKA_TOPIC_PREFIX: p.config.kafkaTopicPrefix,
      REDIS_KEY_PREFIX: p.config.redisKeyPrefix,
      ...HOST_ENV,
    });
    await waitUntil('two fifths delivered', () => firstArrivals() >= (2 * total) / 5, 120_000);
    victim.kill('SIGKILL');
    await startHost();
    const scaled = await scaling;
    expect(scaled.code, scaled.stderr).to.equal(0);
    expect(JSON.parse(scaled.stdout.trim().split('\n').at(-1)!)).to.deep.equal({
      topic: 'mail.webhook-deliveries',
      from: FROM,
      to: TO,
    });
    await publishing;
    await waitUntil('every event at every endpoint', () => firstArrivals() === total, 180_000);

    for (const e of endpoints) {
      const recorded = (
        (await p
          .db('mail_webhook_deliveries')
          .where({ endpoint_id: e.id })
          .orderBy('seq')
          .select('id')) as Array<{
          id: string;
        }>
      ).map((d) => d.id);
      expect(recorded, `${e.path} deliveries`).to.have.length(EVENTS);
      const firsts: string[] = [];
      for (const q of r.requests) {
        const id = String(q.headers['webhook-id']);
        if (q.path === e.path && !firsts.includes(id)) firsts.push(id);
      }
      expect(firsts, `${e.path} first arrivals`).to.deep.equal(recorded);
    }
    noteInTestLog(
      `webhook scaling: ${total} deliveries, ${r.requests.length - total} repeated requests (at-least-once)`,
    );
  });
});
