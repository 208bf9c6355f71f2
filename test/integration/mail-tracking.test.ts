// Open and click tracking through a real public edge, real Kafka and PostgreSQL
// (mail-tracking/fixture.ts): the pixel, the redirect, their events on mail.events, refused
// tokens of every kind, and what a recipient sees when Kafka is down.
import { generateSecretKeyEntry, parseSecretKeys } from '@lattice/core';
import { createRecordProducer } from '@lattice/kafka';
import { createMailEventPublisher, createPostgresSuppressionStore, createTrackingLinks } from '@lattice/mail';
import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { errorOf } from './edge/harness.ts';
import { FORM, ONE_CLICK, startTrackingFixture, type TrackingFixture } from './mail-tracking/fixture.ts';

const GIF_HEADER = 'GIF89a';

describe('mail open and click tracking (real edge, Kafka, PostgreSQL)', () => {
  let fx: TrackingFixture;

  before(async () => {
    fx = await startTrackingFixture('mail-trk');
  });
  after(() => fx?.close());

  it('open: 200 with a 1x1 GIF, not cached, and an `opened` event on mail.events keyed by the email', async () => {
    const email = fx.newEmail('ann.lee@example.org');
    fx.clock.set(1_780_000_123_456);
    const res = await fetch(fx.links.openPixelUrl(email));
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/gif');
    expect(res.headers.get('cache-control')).to.equal('no-store, private');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.subarray(0, 6).toString('latin1')).to.equal(GIF_HEADER);
    expect(body.readUInt16LE(6)).to.equal(1); // width
    expect(body.readUInt16LE(8)).to.equal(1); // height
    const [event, ...more] = await fx.eventsOf(email.emailId);
    expect(more).to.deep.equal([]);
    expect(event).to.deep.include({
      product_id: fx.productId,
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
    const email = fx.newEmail();
    const original = 'https://shop.example/item?id=7&ref=mail&q=a%20b#details';
    const html = `<html><body><p><a class="btn" href="https://shop.example/item?id=7&amp;ref=mail&amp;q=a%20b#details">Buy</a></p></body></html>`;
    const tracked = fx.links.trackedHtml(email, html, { opens: true, clicks: true });
    const href = /<a class="btn" href="([^"]+)">/.exec(tracked)?.[1]?.replaceAll('&amp;', '&');
    expect(href).to.be.a('string').and.include(`${fx.edge.url}/${fx.productId}/mail/t/click/`);
    expect(tracked).to.include(`${fx.edge.url}/${fx.productId}/mail/t/open/`);
    const res = await fetch(href!, { redirect: 'manual' });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal(original);
    expect(res.headers.get('cache-control')).to.equal('no-store, private');
    const [event] = await fx.eventsOf(email.emailId);
    expect(event).to.deep.include({
      type: 'clicked',
      link: original,
      recipient: email.recipient,
      provider_message_id: null,
    });
  });

  it('click: a URL that is no valid header value is redirected to its WHATWG form', async () => {
    const email = fx.newEmail();
    const res = await fetch(fx.links.clickUrl(email, 'https://shop.example/größe?a=ü b')!, {
      redirect: 'manual',
    });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('https://shop.example/gr%C3%B6%C3%9Fe?a=%C3%BC%20b');
    const [event] = await fx.eventsOf(email.emailId);
    expect(event!.link).to.equal('https://shop.example/größe?a=ü b');
  });

  it('links with parameters appended (analytics, link scanners) work as without: pixel, click, unsubscribe page and one-click', async () => {
    const appended = (url: string) =>
      `${url}${url.includes('?') ? '&' : '?'}utm_source=newsletter&utm_medium=email&fbclid=x%20y&token=other`;
    const email = fx.newEmail('max.appended@example.org');
    const pixel = await fetch(appended(fx.links.openPixelUrl(email)));
    expect(pixel.status).to.equal(200);
    expect(pixel.headers.get('content-type')).to.equal('image/gif');
    const click = await fetch(appended(fx.links.clickUrl(email, 'https://shop.example/a?b=1')!), {
      redirect: 'manual',
    });
    expect(click.status).to.equal(302);
    expect(click.headers.get('location')).to.equal('https://shop.example/a?b=1');
    const events = await fx.eventsOf(email.emailId, 2);
    expect(events.map((e) => e.type).sort()).to.deep.equal(['clicked', 'opened']);
    const page = await fetch(appended(fx.links.unsubscribeUrl(email)));
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const oneClick = await fetch(appended(fx.links.unsubscribeUrl(email)), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).to.equal(200);
    expect((await fx.suppressionsOf(fx.productId)).map((r) => r.address)).to.include(email.recipient);
  });

  it('tampered, unknown, wrong-kind, other-product and over-long tokens: 404 not_found, nothing recorded', async () => {
    const { edge, links, productId } = fx;
    const email = fx.newEmail();
    const open = links.openPixelUrl(email);
    const click = links.clickUrl(email, 'https://x.example/')!;
    const unsubscribe = links.unsubscribeUrl(email);
    const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const otherProduct = await fx.suite.newProduct();
    // Its kid k1 is one the edge holds, with another secret.
    const strangerLinks = createTrackingLinks({
      keyring: parseSecretKeys(generateSecretKeyEntry('k1')),
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
    await fx.expectNothingRecordedFor([email.emailId]);
    expect((await fx.suppressionsOf(productId)).map((r) => r.address)).to.not.include(email.recipient);
    expect(await fx.suppressionsOf(otherProduct)).to.deep.equal([]);
    const metrics = await fx.registry.getSingleMetricAsString('lattice_mail_tracking_requests_total');
    // Of the refusals above: ten on the open route, two on click, one GET and two POST unsubscribes.
    expect(metrics).to.match(/route="open",outcome="invalid_token"\} 10$/m);
    expect(metrics).to.match(/route="click",outcome="invalid_token"\} 2$/m);
    expect(metrics).to.match(/route="unsubscribe_page",outcome="invalid_token"\} 1$/m);
    expect(metrics).to.match(/route="unsubscribe",outcome="invalid_token"\} 2$/m);
  });

  it('Kafka unreachable: the pixel and the redirect are answered all the same and the loss is counted', async () => {
    const registry = new Registry();
    // Nothing listens there; a few quick connection retries, then each publish fails.
    const nowhere = new Kafka({
      clientId: 'nowhere',
      brokers: ['127.0.0.1:1'],
      connectionTimeout: 300,
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 300 },
      logLevel: logLevel.NOTHING,
    });
    const events = createMailEventPublisher({
      producer: () => createRecordProducer(nowhere),
      topic: fx.topic,
      logger: fx.logger,
      timeoutMs: 2000,
    });
    try {
      const links = await fx.startEdgeWith({
        events,
        suppressions: createPostgresSuppressionStore(fx.suite.db),
        registry,
      });
      const email = fx.newEmail();
      const open = await fetch(links.openPixelUrl(email));
      expect(open.status).to.equal(200);
      const gif = Buffer.from(await open.arrayBuffer());
      expect(gif.subarray(0, 6).toString('latin1')).to.equal(GIF_HEADER);
      const click = await fetch(links.clickUrl(email, 'https://x.example/after')!, { redirect: 'manual' });
      expect(click.status).to.equal(302);
      expect(click.headers.get('location')).to.equal('https://x.example/after');
      const lost = await registry.getSingleMetricAsString('lattice_mail_tracking_events_lost_total');
      expect(lost)
        .to.match(/type="opened"\} 1$/m)
        .and.match(/type="clicked"\} 1$/m);
    } finally {
      await events.close();
    }
  });
});
