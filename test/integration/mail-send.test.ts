// Sending end to end (real PostgreSQL, Redis, Kafka, a real SMTP smart host): accept on the
// management API and the public edge, the mail sender's handover with its DKIM signature (checked
// by mailauth against the records mail_domain_get publishes, served by a DNS server of the
// test), what each smart-host answer makes of the email, suppression at accept and at send,
// tracking rewrites and the RFC 8058 one-click unsubscribe of a sent message.
import { Resolver } from 'node:dns/promises';
import { startTestDnsServer, type TestDnsServer } from '@lattice/mail/testing';
import { expect } from 'chai';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { simpleParser } from 'mailparser';
import { waitUntil } from '../support/wait-until.ts';
import { type EmailAnswer, type MailPlatform, startMailPlatform } from './mail/mail-platform.ts';

interface DomainAnswer {
  id: string;
  records: Array<{ type: string; name: string; value: string; priority?: number }>;
}

describe('mail sending end to end (real SMTP smart host, Kafka, PostgreSQL, Redis)', function () {
  this.timeout(60_000);
  let p: MailPlatform;
  let dns: TestDnsServer;

  before(async () => {
    p = await startMailPlatform({ label: 'mail-send' });
    dns = await startTestDnsServer();
  });
  after(async () => {
    await dns?.close();
    await p?.close();
  });

  const from = () => `Shop <news@${p.product.domain}>`;
  const send = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    p.call<{ id: string }>('POST', '/mail/emails', p.product.ownerToken, body, headers);
  const receivedFor = (rcpt: string) =>
    p.smartHost.received.filter((m) => m.rcptTo.some((r) => r.toLowerCase() === rcpt.toLowerCase()));

  async function sentAndFinal(
    to: string,
    done: (e: EmailAnswer) => boolean,
    extra: Record<string, unknown> = {},
  ) {
    const accepted = await send({ from: from(), to, subject: 'Hello', html: '<p>Hi</p>', ...extra });
    expect(accepted.status, accepted.text).to.equal(202);
    return { id: accepted.json.id, email: await p.waitForEmail(accepted.json.id, done) };
  }

  it('delivers: 202 {id}, queued at once, then delivered with the smart host’s queue id; the message is DKIM-signed, VERP-addressed and carries one-click unsubscribe', async () => {
    const accepted = await send({
      from: from(),
      to: 'Bob <Bob@Example.net>',
      subject: 'Your order',
      html: '<p>Thanks</p>',
      text: 'Thanks',
      reply_to: 'help@example.org',
      headers: { 'X-Entity-Ref-ID': 'order-1' },
    });
    expect(accepted.status, accepted.text).to.equal(202);
    expect(Object.keys(accepted.json)).to.deep.equal(['id']);
    const id = accepted.json.id;
    const first = await p.call<EmailAnswer>('GET', `/mail/emails/${id}`, p.product.ownerToken);
    expect(first.status).to.equal(200);
    expect(first.json).to.include({ id, from: from(), to: 'Bob <Bob@Example.net>', subject: 'Your order' });
    expect(['queued', 'delivered']).to.include(first.json.status);

    const done = await p.waitForEmail(id, (e) => e.status === 'delivered' && e.last_event !== null);
    expect(done.last_event).to.include({ type: 'delivered', bounce_kind: null });
    const [message] = receivedFor('Bob@Example.net');
    expect(message, 'the smart host received it').to.not.equal(undefined);
    expect(message!.mailFrom).to.equal(`bounce+${id}@send.${p.product.domain}`);
    expect(message!.messageId).to.equal(`<${id}@${p.product.domain}>`);
    const event = await p.db('mail_email_events').where({ email_id: id, type: 'delivered' }).first();
    expect(event.provider_message_id).to.equal(message!.queueId);

    const parsed = await simpleParser(message!.raw);
    const headers = unfolded(message!.raw);
    expect(headers).to.match(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(headers).to.match(
      new RegExp(`^List-Unsubscribe: <${p.edge.url}/${p.product.productId}/mail/unsubscribe/[^>]+>$`, 'm'),
    );
    expect(String(parsed.headers.get('x-entity-ref-id'))).to.equal('order-1');
    expect(parsed.replyTo?.text).to.equal('help@example.org');
    expect(parsed.text?.trim()).to.equal('Thanks');

    // DKIM: the records the domain API answers, published by a real DNS server, checked by mailauth.
    const domain = await p.call<DomainAnswer>(
      'GET',
      `/mail/domains/${p.product.domainId}`,
      p.product.ownerToken,
    );
    expect(domain.status).to.equal(200);
    const dkim = domain.json.records.find((r) => r.type === 'TXT' && r.name.includes('._domainkey.'))!;
    dns.txt(dkim.name, dkim.value);
    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    const verified = await dkimVerify(message!.raw, {
      // DKIM asks for TXT records only.
      resolver: (name: string) => resolver.resolveTxt(name),
    });
    expect(verified.results.map((r: { status: { result: string } }) => r.status.result)).to.deep.equal([
      'pass',
    ]);
    expect(verified.results[0]).to.include({ signingDomain: p.product.domain });
  });

  it('a 1 500-character subject without spaces reaches the smart host folded and RFC 2047-encoded, every line within 998 octets, decoding to the original; trace and authentication headers are refused', async () => {
    const subject = `Invoice-${'X'.repeat(1500)}`;
    const accepted = await send({
      from: from(),
      to: 'long.subject@example.net',
      subject,
      text: 'x',
      headers: { 'X-Long-Ref': 'R'.repeat(1200) },
    });
    expect(accepted.status, accepted.text).to.equal(202);
    await p.waitForEmail(accepted.json.id, (e) => e.status === 'delivered');
    const [message] = receivedFor('long.subject@example.net');
    const lines = message!.raw.toString('utf8').split('\r\n');
    const tooLong = lines.filter((l) => Buffer.byteLength(l) > 998);
    expect(tooLong.map((l) => l.slice(0, 40))).to.deep.equal([]);
    expect(lines.find((l) => l.startsWith('Subject:'))).to.match(/^Subject: =\?UTF-8\?Q\?Invoice-X+\?=$/);
    expect((await simpleParser(message!.raw)).subject).to.equal(subject);

    for (const name of [
      'Authentication-Results',
      'ARC-Seal',
      'Received-SPF',
      'Delivered-To',
      'Resent-From',
    ]) {
      const refused = await send({
        from: from(),
        to: 'long.subject@example.net',
        subject: 'x',
        text: 'x',
        headers: { [name]: 'mx.bank.example; dmarc=pass header.from=bank.example' },
      });
      expect(refused.status, name).to.equal(400);
      const error = (refused.json as unknown as { error: { fields?: Array<{ path: string }> } }).error;
      expect(
        error.fields?.map((f) => f.path),
        name,
      ).to.deep.equal([`body.headers.${name}`]);
    }
  });

  it('a 550 answer: bounced (hard) with the reply as reason, the address suppressed; the next send is 202 suppressed and never handed over', async () => {
    const { id, email } = await sentAndFinal('hard-1@example.net', (e) => e.status === 'bounced');
    expect(email.last_event).to.include({ type: 'bounced', bounce_kind: 'hard' });
    expect(email.last_event!.reason).to.match(/^550 5\.1\.1/);
    const list = await p.call<{ data: Array<{ address: string; reason: string; email_id: string }> }>(
      'GET',
      '/mail/suppressions?limit=100',
      p.product.ownerToken,
    );
    expect(list.json.data.find((d) => d.address === 'hard-1@example.net')).to.include({
      reason: 'hard_bounce',
      email_id: id,
    });

    const rcptsBefore = p.smartHost.rcptLog.length;
    const again = await send({ from: from(), to: 'Hard-1@Example.net', subject: 'Again', html: '<p>x</p>' });
    expect(again.status).to.equal(202);
    const now = await p.call<EmailAnswer>('GET', `/mail/emails/${again.json.id}`, p.product.ownerToken);
    expect(now.json.status, 'suppressed as soon as accepted').to.equal('suppressed');
    const settled = await p.waitForEmail(again.json.id, (e) => e.last_event !== null);
    expect(settled.last_event).to.include({ type: 'suppressed', bounce_kind: null });
    expect(p.smartHost.rcptLog.length, 'nothing handed over').to.equal(rcptsBefore);
  });

  it('a 452 answer: retried once per MAIL_RETRY_DELAYS_MS value (four attempts), then a soft bounce that leaves the status and suppresses nothing', async () => {
    const { email } = await sentAndFinal('full-1@example.net', (e) => e.last_event?.type === 'bounced');
    expect(email.status).to.equal('queued');
    expect(email.last_event).to.include({ bounce_kind: 'soft' });
    expect(email.last_event!.reason).to.match(/^452 4\.2\.2/);
    expect(p.smartHost.rcptLog.filter((r) => r.address === 'full-1@example.net')).to.have.length(4);
    const listed = await p
      .db('mail_suppressions')
      .where({ product_id: p.product.productId, address: 'full-1@example.net' });
    expect(listed).to.have.length(0);
  });

  it('a 4xx that clears: delivered on the attempt after it', async () => {
    let refusals = 0;
    p.smartHost.answer = (address) => (address === 'later@example.net' && refusals++ === 0 ? 451 : undefined);
    try {
      const { email } = await sentAndFinal('later@example.net', (e) => e.status === 'delivered');
      expect(email.last_event).to.include({ type: 'delivered' });
      expect(
        p.smartHost.rcptLog.filter((r) => r.address === 'later@example.net').map((r) => r.code),
      ).to.deep.equal([451, 250]);
    } finally {
      p.smartHost.answer = null;
    }
  });

  it('421 on every attempt (the relay, not the recipient): retried, then an undetermined bounce, nothing suppressed', async () => {
    p.smartHost.answer = (address) => (address === 'relay-down@example.net' ? 421 : undefined);
    try {
      const { email } = await sentAndFinal('relay-down@example.net', (e) => e.last_event?.type === 'bounced');
      expect(email.status).to.equal('queued');
      expect(email.last_event).to.include({ bounce_kind: 'undetermined' });
      const listed = await p
        .db('mail_suppressions')
        .where({ product_id: p.product.productId, address: 'relay-down@example.net' });
      expect(listed).to.have.length(0);
    } finally {
      p.smartHost.answer = null;
    }
  });

  it('a 554 answer to DATA is a hard bounce too', async () => {
    const { email } = await sentAndFinal('reject-data-1@example.net', (e) => e.status === 'bounced');
    expect(email.last_event).to.include({ bounce_kind: 'hard' });
    expect(email.last_event!.reason).to.match(/^554/);
  });

  it('suppressed between accept and send: email.suppressed again at send time, nothing handed over', async () => {
    // Held at the smart host's door: the first attempt is refused (4xx), the address is then
    // suppressed by hand, and the retry finds it suppressed.
    p.smartHost.answer = (address) => (address === 'changed-mind@example.net' ? 451 : undefined);
    try {
      const accepted = await send({
        from: from(),
        to: 'changed-mind@example.net',
        subject: 's',
        html: '<p>x</p>',
      });
      expect(accepted.status).to.equal(202);
      await waitUntil(
        'the recipient at the smart host',
        () => p.smartHost.rcptLog.some((r) => r.address === 'changed-mind@example.net'),
        20_000,
        50,
      );
      const listed = await p.call('POST', '/mail/suppressions', p.product.ownerToken, {
        address: 'changed-mind@example.net',
      });
      expect(listed.status).to.equal(201);
      const email = await p.waitForEmail(accepted.json.id, (e) => e.status === 'suppressed');
      expect(email.last_event).to.include({ type: 'suppressed' });
      expect(p.smartHost.rcptLog.filter((r) => r.address === 'changed-mind@example.net')).to.have.length(1);
    } finally {
      p.smartHost.answer = null;
    }
  });

  it('tracking on: links go through the click route and a pixel is added; opening and clicking record once each, and the one-click unsubscribe suppresses', async () => {
    const switched = await p.call('PATCH', `/mail/domains/${p.product.domainId}`, p.product.ownerToken, {
      open_tracking: true,
      click_tracking: true,
    });
    expect(switched.status, switched.text).to.equal(200);
    try {
      const { id } = await sentAndFinal('reader@example.net', (e) => e.status === 'delivered', {
        html: '<html><body><a href="https://shop.example.org/item?id=1&amp;ref=mail">Item</a> <a href="mailto:x@y.org">m</a></body></html>',
      });
      const [message] = receivedFor('reader@example.net');
      const parsed = await simpleParser(message!.raw);
      const html = String(parsed.html);
      const clickUrl = /href="([^"]*\/mail\/t\/click\/[^"]+)"/.exec(html)?.[1];
      const pixelUrl = /src="([^"]*\/mail\/t\/open\/[^"]+)"/.exec(html)?.[1];
      expect(clickUrl, html).to.be.a('string');
      expect(pixelUrl, html).to.be.a('string');
      expect(html).to.include('href="mailto:x@y.org"');
      expect(clickUrl!.startsWith(`${p.edge.url}/${p.product.productId}/mail/t/click/`)).to.equal(true);

      // Two opens and two clicks of one link: a repeat is the same event again (one id per open
      // and per clicked link), so once the actor dropped both repeats by their ids, all four were
      // applied (one email's events are applied in order), and one of each is recorded.
      const dropped = async (reason: string) =>
        (
          await p.actorsRegistry.getSingleMetric('lattice_mail_state_events_dropped_total')!.get()
        ).values.find((v) => v.labels.reason === reason)?.value ?? 0;
      const repeatsBefore = await dropped('duplicate_event');
      const click = await fetch(clickUrl!.replaceAll('&amp;', '&'), { redirect: 'manual' });
      expect(click.status).to.equal(302);
      expect(click.headers.get('location')).to.equal('https://shop.example.org/item?id=1&ref=mail');
      await fetch(clickUrl!.replaceAll('&amp;', '&'), { redirect: 'manual' });
      for (let i = 0; i < 2; i++)
        expect((await fetch(pixelUrl!.replaceAll('&amp;', '&'))).status).to.equal(200);
      await waitUntil(
        'both repeats dropped',
        async () => (await dropped('duplicate_event')) === repeatsBefore + 2,
        20_000,
        50,
      );
      const recorded = (await p
        .db('mail_email_events')
        .where({ email_id: id })
        .whereIn('type', ['opened', 'clicked'])
        .select('type', 'link')) as Array<{ type: string; link: string | null }>;
      expect(recorded.map((r) => r.type).sort()).to.deep.equal(['clicked', 'opened']);
      expect(recorded.find((r) => r.type === 'clicked')!.link).to.equal(
        'https://shop.example.org/item?id=1&ref=mail',
      );
      const email = await p.waitForEmail(id, (e) => ['opened', 'clicked'].includes(e.last_event?.type ?? ''));
      expect(email.status).to.equal('delivered');

      const unsubscribe = /^List-Unsubscribe:\s*<([^>]+)>/im.exec(unfolded(message!.raw))![1]!;
      const post = await fetch(unsubscribe, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(post.status).to.equal(200);
      const entry = await p
        .db('mail_suppressions')
        .where({ product_id: p.product.productId, address: 'reader@example.net' })
        .first();
      expect(entry).to.include({ reason: 'unsubscribe', email_id: id });
      expect((await p.waitForEmail(id, () => true)).status, 'an unsubscribe leaves the status').to.equal(
        'delivered',
      );
    } finally {
      await p.call('PATCH', `/mail/domains/${p.product.domainId}`, p.product.ownerToken, {
        open_tracking: false,
        click_tracking: false,
      });
    }
  });

  it('tracking off (the default): the html is sent as given, with no pixel', async () => {
    await sentAndFinal('plain@example.net', (e) => e.status === 'delivered', {
      html: '<p><a href="https://example.org/a">a</a></p>',
    });
    const parsed = await simpleParser(receivedFor('plain@example.net')[0]!.raw);
    expect(String(parsed.html).trim()).to.equal('<p><a href="https://example.org/a">a</a></p>');
  });
});

/** The message's header block with folded lines joined (RFC 5322 2.2.3). */
function unfolded(raw: Buffer): string {
  const text = raw.toString('latin1');
  return text.slice(0, text.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
}
