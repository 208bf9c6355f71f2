// Tracking and one-click unsubscribe through a real public edge (edge role, PostgreSQL, Redis)
// with the mail toolkit's tracking handlers on a real Kafka topic of its own (one partition, so
// the events of a test are totally ordered and "nothing was recorded" is provable: a sentinel
// open published after the refused requests is consumed with nothing before it) and the real
// PostgreSQL suppression list.
import { randomUUID } from 'node:crypto';
import { createLogger, generateSecretKeyEntry, parseSecretKeys } from '@lattice/core';
import { ManualClock, testConfig, uniqueName } from '@lattice/core/testing';
import type { RunningEdge } from '@lattice/edge';
import {
  createKafka,
  createRecordProducer,
  ensureTopics,
  type RecordProducer,
  TOPIC_CATALOG,
  topicName,
} from '@lattice/kafka';
import {
  createMailEventPublisher,
  createPostgresSuppressionStore,
  createTrackingHandlers,
  createTrackingLinks,
  type MailEventPublisher,
  type MailEventRecord,
  mailEventCodec,
  type TrackedEmail,
  type TrackingLinks,
  trackingMetrics,
} from '@lattice/mail';
import { createDb } from '@lattice/store';
import { expect } from 'chai';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { type EdgeSuite, edgeSuite, errorOf, waitFor } from './edge/harness.ts';

const GIF_HEADER = 'GIF89a';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ONE_CLICK = 'List-Unsubscribe=One-Click';

interface Consumed {
  key: string;
  event: MailEventRecord;
}

describe('mail tracking and unsubscribe links (real edge, Kafka, PostgreSQL)', () => {
  const config = testConfig();
  const logger = createLogger({ name: 'mail-tracking-test', level: config.logLevel });
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'mail-tracking-test', logger });
  const topic = topicName(`${uniqueName('mail-trk')}.`, TOPIC_CATALOG.mailEvents.name);
  const keyring = parseSecretKeys(`${generateSecretKeyEntry('k2')},${generateSecretKeyEntry('k1')}`);
  const clock = new ManualClock(1_780_000_000_000);
  const registry = new Registry();
  const consumed: Consumed[] = [];
  let suite: EdgeSuite;
  let producer: RecordProducer;
  let events: MailEventPublisher;
  let consumer: Consumer;
  let edge: RunningEdge;
  let links: TrackingLinks;
  let productId: string;

  before(async () => {
    suite = await edgeSuite();
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics({ admin, names: [topic], partitions: 1, replicationFactor: 1, logger });
    await admin.disconnect();
    producer = await createRecordProducer(kafka);
    events = createMailEventPublisher({ producer, topic, logger });
    const codec = mailEventCodec();
    consumer = kafka.consumer({ groupId: uniqueName('mail-trk') });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        consumed.push({ key: message.key!.toString(), event: codec.decode(message.value!) });
      },
    });
    const handlers = createTrackingHandlers({
      keyring,
      events,
      suppressions: createPostgresSuppressionStore(suite.db),
      clock,
      logger,
      metrics: trackingMetrics(registry),
    });
    edge = await suite.startEdge('production', { toolkits: [handlers] });
    links = createTrackingLinks({
      keyring,
      publicUrls: { production: edge.url, development: 'http://dev.invalid' },
    });
    productId = await suite.newProduct();
  });

  after(async () => {
    await consumer?.disconnect();
    await events?.close();
    await producer?.disconnect();
    await suite?.close();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  });

  function newEmail(recipient = `${uniqueName('r')}@example.org`): TrackedEmail {
    return { environment: 'production', productId, emailId: randomUUID(), recipient };
  }

  /** Waits for the events of `emailId` until `count` have arrived. */
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

  /**
   * Proves nothing was published for `emailIds` so far: an open published now is the next
   * record of the one partition, so once it is consumed everything before it has been too.
   */
  async function expectNothingRecordedFor(emailIds: string[]): Promise<void> {
    const sentinel = newEmail();
    expect((await fetch(links.openPixelUrl(sentinel))).status).to.equal(200);
    await eventsOf(sentinel.emailId);
    expect(consumed.filter((c) => emailIds.includes(c.event.email_id ?? ''))).to.deep.equal([]);
  }

  async function suppressionsOf(id: string) {
    return suite
      .db('mail_suppressions')
      .where({ product_id: id })
      .select('address', 'reason', 'email_id', 'created_at');
  }

  it('open: 200 with a 1x1 GIF, not cached, and an `opened` event on mail.events keyed by the email', async () => {
    const email = newEmail('ann.lee@example.org');
    clock.set(1_780_000_123_456);
    const res = await fetch(links.openPixelUrl(email));
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/gif');
    expect(res.headers.get('cache-control')).to.equal('no-store, private');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.subarray(0, 6).toString('latin1')).to.equal(GIF_HEADER);
    expect(body.readUInt16LE(6)).to.equal(1); // width
    expect(body.readUInt16LE(8)).to.equal(1); // height
    const [event, ...more] = await eventsOf(email.emailId);
    expect(more).to.deep.equal([]);
    expect(event).to.deep.include({
      product_id: productId,
      email_id: email.emailId,
      type: 'opened',
      recipient: 'ann.lee@example.org',
      bounce_kind: null,
      reason: null,
      provider_message_id: null,
      link: null,
      occurred_at_ms: 1_780_000_123_456,
    });
    expect(event!.event_id).to.match(/^[0-9a-f-]{36}$/);
  });

  it('click: 302 to the exact original URL of the html link, not cached, and a `clicked` event with the link', async () => {
    const email = newEmail();
    const original = 'https://shop.example/item?id=7&ref=mail&q=a%20b#details';
    const html = `<html><body><p><a class="btn" href="https://shop.example/item?id=7&amp;ref=mail&amp;q=a%20b#details">Buy</a></p></body></html>`;
    const tracked = links.trackedHtml(email, html, { opens: true, clicks: true });
    const href = /<a class="btn" href="([^"]+)">/.exec(tracked)?.[1]?.replaceAll('&amp;', '&');
    expect(href).to.be.a('string').and.include(`${edge.url}/${productId}/mail/t/click/`);
    expect(tracked).to.include(`${edge.url}/${productId}/mail/t/open/`);
    const res = await fetch(href!, { redirect: 'manual' });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal(original);
    expect(res.headers.get('cache-control')).to.equal('no-store, private');
    const [event] = await eventsOf(email.emailId);
    expect(event).to.deep.include({
      type: 'clicked',
      link: original,
      recipient: email.recipient,
      provider_message_id: null,
    });
  });

  it('click: a URL that is no valid header value is redirected to its WHATWG form', async () => {
    const email = newEmail();
    const res = await fetch(links.clickUrl(email, 'https://shop.example/größe?a=ü b')!, {
      redirect: 'manual',
    });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('https://shop.example/gr%C3%B6%C3%9Fe?a=%C3%BC%20b');
    const [event] = await eventsOf(email.emailId);
    expect(event!.link).to.equal('https://shop.example/größe?a=ü b');
  });

  it('tampered, unknown, wrong-kind, other-product and over-long tokens: 404 not_found, nothing recorded', async () => {
    const email = newEmail();
    const open = links.openPixelUrl(email);
    const click = links.clickUrl(email, 'https://x.example/')!;
    const unsubscribe = links.unsubscribeUrl(email);
    const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const otherProduct = await suite.newProduct();
    const stranger = parseSecretKeys(generateSecretKeyEntry('k1'));
    const strangerLinks = createTrackingLinks({
      keyring: stranger,
      publicUrls: { production: edge.url, development: edge.url },
    });
    const refused: Array<[string, string, string?]> = [
      ['GET', open.replace(tokenOf(open), flip(tokenOf(open), 5))],
      ['GET', open.replace(tokenOf(open), flip(tokenOf(open), tokenOf(open).length - 2))],
      ['GET', open.replace(tokenOf(open), `k9${tokenOf(open).slice(2)}`)],
      ['GET', strangerLinks.openPixelUrl(email)],
      ['GET', `${edge.url}/${productId}/mail/t/click/${tokenOf(open)}`],
      ['GET', `${edge.url}/${productId}/mail/t/open/${tokenOf(click)}`],
      ['GET', `${edge.url}/${productId}/mail/t/open/${tokenOf(unsubscribe)}`],
      ['GET', `${edge.url}/${otherProduct}/mail/t/open/${tokenOf(open)}`],
      ['GET', `${edge.url}/${otherProduct}/mail/t/click/${tokenOf(click)}`],
      ['GET', `${edge.url}/${productId}/mail/t/open/${tokenOf(open)}${'A'.repeat(3000)}`],
      ['GET', `${edge.url}/${productId}/mail/t/open/${'A'.repeat(2049)}`],
      ['GET', `${edge.url}/${productId}/mail/t/open/garbage`],
      ['GET', `${edge.url}/${productId}/mail/unsubscribe/${tokenOf(open)}`],
      ['POST', `${edge.url}/${otherProduct}/mail/unsubscribe/${tokenOf(unsubscribe)}`, ONE_CLICK],
      ['POST', `${edge.url}/${productId}/mail/unsubscribe/${tokenOf(click)}`, ONE_CLICK],
    ];
    for (const [method, url, body] of refused) {
      const res = await fetch(url, { method, redirect: 'manual', ...(body ? { body, headers: FORM } : {}) });
      const answer = { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
      expect(answer.status, `${method} ${url.slice(0, 200)}`).to.equal(404);
      expect(errorOf(answer)).to.deep.equal({
        code: 'not_found',
        message: 'This link is not valid',
        step: 'tracking',
      });
      expect(res.headers.get('location')).to.equal(null);
    }
    // HEAD answers like GET and records nothing either (link scanners probe with it).
    const head = await fetch(open, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-type')).to.equal('image/gif');
    expect((await fetch(click, { method: 'HEAD', redirect: 'manual' })).status).to.equal(302);
    await expectNothingRecordedFor([email.emailId]);
    expect(await suppressionsOf(productId)).to.satisfy((rows: Array<{ address: string }>) =>
      rows.every((r) => r.address !== email.recipient),
    );
    expect(await suppressionsOf(otherProduct)).to.deep.equal([]);
    const metrics = await registry.getSingleMetricAsString('lattice_mail_tracking_requests_total');
    // Ten of the refusals above were on the open route, two on click, one GET and two POST unsubscribes.
    expect(metrics).to.match(/route="open",outcome="invalid_token"\} 10$/m);
    expect(metrics).to.match(/route="click",outcome="invalid_token"\} 2$/m);
    expect(metrics).to.match(/route="unsubscribe_page",outcome="invalid_token"\} 1$/m);
    expect(metrics).to.match(/route="unsubscribe",outcome="invalid_token"\} 2$/m);
  });

  it('GET unsubscribe: a confirmation page posting the one-click body, and nothing suppressed', async () => {
    const email = newEmail('zoe.q@example.org');
    const res = await fetch(links.unsubscribeUrl(email));
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('no-store, private');
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(res.headers.get('content-security-policy'))
      .to.include("default-src 'none'")
      .and.include("form-action 'self'");
    const page = await res.text();
    expect(page).to.include('z***@example.org').and.not.include('zoe.q@');
    expect(page).to.include(
      '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">',
    );
    expect(await suppressionsOf(productId)).to.satisfy((rows: Array<{ address: string }>) =>
      rows.every((r) => r.address !== email.recipient),
    );
  });

  it('POST one-click (RFC 8058 body): suppressed with reason unsubscribe; twice is still one entry', async () => {
    const email = newEmail();
    const url = links.unsubscribeUrl(email);
    const first = await fetch(url, { method: 'POST', headers: FORM, body: ONE_CLICK });
    expect(first.status).to.equal(200);
    expect(first.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(await first.text()).to.include('You are unsubscribed');
    const rows = (await suppressionsOf(productId)).filter((r) => r.address === email.recipient);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.deep.include({
      address: email.recipient,
      reason: 'unsubscribe',
      email_id: email.emailId,
    });
    const again = await fetch(url, { method: 'POST', headers: FORM, body: ONE_CLICK });
    expect(again.status).to.equal(200);
    expect((await suppressionsOf(productId)).filter((r) => r.address === email.recipient)).to.deep.equal(
      rows,
    );
  });

  it('POST as multipart/form-data (the RFC’s preferred form) and with an empty body unsubscribe too', async () => {
    const a = newEmail();
    const form = new FormData();
    form.append('List-Unsubscribe', 'One-Click');
    expect((await fetch(links.unsubscribeUrl(a), { method: 'POST', body: form })).status).to.equal(200);
    const b = newEmail();
    expect((await fetch(links.unsubscribeUrl(b), { method: 'POST' })).status).to.equal(200);
    const listed = (await suppressionsOf(productId)).map((r) => r.address);
    expect(listed).to.include(a.recipient).and.include(b.recipient);
  });

  it('POST with a JSON, oversized, wrong or malformed body: 4xx and nothing suppressed', async () => {
    const email = newEmail();
    const url = links.unsubscribeUrl(email);
    const cases: Array<[RequestInit, number, string]> = [
      [
        { headers: { 'content-type': 'application/json' }, body: '{"List-Unsubscribe":"One-Click"}' },
        415,
        'unsupported_media_type',
      ],
      [{ headers: { 'content-type': 'text/plain' }, body: ONE_CLICK }, 415, 'unsupported_media_type'],
      [{ headers: FORM, body: `${ONE_CLICK}&pad=${'x'.repeat(65_536)}` }, 413, 'payload_too_large'],
      [{ headers: FORM, body: 'List-Unsubscribe=Yes' }, 400, 'validation_error'],
      [
        { headers: { 'content-type': 'multipart/form-data; boundary=zz' }, body: '--zz\r\nbroken' },
        400,
        'invalid_form',
      ],
    ];
    for (const [init, status, code] of cases) {
      const res = await fetch(url, { method: 'POST', ...init });
      const answer = { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
      expect(answer.status, code).to.equal(status);
      expect(errorOf(answer).code).to.equal(code);
    }
    expect((await suppressionsOf(productId)).map((r) => r.address)).to.not.include(email.recipient);
  });

  it('Kafka unreachable: the pixel and the redirect are answered all the same and the loss is counted', async () => {
    const lostRegistry = new Registry();
    // Nothing listens there; a few quick connection retries, then each publish fails.
    const nowhere = new Kafka({
      clientId: 'nowhere',
      brokers: ['127.0.0.1:1'],
      connectionTimeout: 300,
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 300 },
      logLevel: logLevel.NOTHING,
    });
    const lostEvents = createMailEventPublisher({
      producer: () => createRecordProducer(nowhere),
      topic,
      logger,
      timeoutMs: 2000,
    });
    const brokenDb = createDb({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', logger });
    const degraded = await suite.startEdge('production', {
      toolkits: [
        createTrackingHandlers({
          keyring,
          events: lostEvents,
          suppressions: createPostgresSuppressionStore(brokenDb),
          clock,
          logger,
          metrics: trackingMetrics(lostRegistry),
        }),
      ],
    });
    try {
      const degradedLinks = createTrackingLinks({
        keyring,
        publicUrls: { production: degraded.url, development: degraded.url },
      });
      const email = newEmail();
      const open = await fetch(degradedLinks.openPixelUrl(email));
      expect(open.status).to.equal(200);
      expect(
        Buffer.from(await open.arrayBuffer())
          .subarray(0, 6)
          .toString('latin1'),
      ).to.equal(GIF_HEADER);
      const click = await fetch(degradedLinks.clickUrl(email, 'https://x.example/after')!, {
        redirect: 'manual',
      });
      expect(click.status).to.equal(302);
      expect(click.headers.get('location')).to.equal('https://x.example/after');
      const lost = await lostRegistry.getSingleMetricAsString('lattice_mail_tracking_events_lost_total');
      expect(lost)
        .to.match(/type="opened"\} 1$/m)
        .and.match(/type="clicked"\} 1$/m);
      // PostgreSQL unreachable: the one-click POST is 503 (retry), never a 500.
      const unsubscribe = await fetch(degradedLinks.unsubscribeUrl(email), {
        method: 'POST',
        headers: FORM,
        body: ONE_CLICK,
      });
      expect(unsubscribe.status).to.equal(503);
      expect(unsubscribe.headers.get('retry-after')).to.equal('5');
      expect(((await unsubscribe.json()) as { error: { code: string } }).error.code).to.equal(
        'unsubscribe_unavailable',
      );
    } finally {
      await lostEvents.close();
      await brokenDb.destroy();
    }
    await expectNothingRecordedFor([]);
  });
});
