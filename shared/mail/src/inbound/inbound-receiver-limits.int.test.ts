import { createRecordProducer } from '@lattice/kafka';
import { createDb } from '@lattice/store';
import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import nodemailer from 'nodemailer';
import { Registry } from 'prom-client';
import { createMailEventPublisher, type MailEventPublisher } from '../events/mail-event.ts';
import { FIXTURES, fixtureFor, readFixture } from './fixtures/fixtures.ts';
import {
  INBOUND_MAX_RECIPIENTS,
  type InboundReceiverDeps,
  type RunningInboundReceiver,
  startInboundReceiver,
} from './inbound-receiver.ts';
import { counterValue, type InboundHarness, startInboundHarness, verpOf } from './testing/inbound-harness.ts';
import { openSmtpDialog } from './testing/smtp-dialog.ts';

const MAX_BYTES = 8192;

/** The report padded in its human-readable part to exactly `size` bytes. */
function paddedTo(raw: Buffer, size: number): Buffer {
  const text = raw.toString('latin1');
  const at = text.indexOf('                   The mail system');
  let missing = size - text.length;
  const lines: string[] = [];
  while (missing > 0) {
    const len = Math.min(78, missing - 2);
    lines.push('p'.repeat(Math.max(0, len)));
    missing -= Math.max(0, len) + 2;
  }
  const padded = `${text.slice(0, at)}${lines.map((l) => `${l}\r\n`).join('')}${text.slice(at)}`;
  expect(padded.length).to.equal(size);
  return Buffer.from(padded, 'latin1');
}

async function deliver(port: number, raw: Buffer, to: string): Promise<{ code: number; text: string }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({ envelope: { from: '', to: [to] }, raw });
    return { code: Number(info.response.slice(0, 3)), text: info.response };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; message: string };
    return { code: e.responseCode ?? 0, text: e.response ?? e.message };
  } finally {
    transport.close();
  }
}

describe('inbound receiver: size cap, bad input, outages and shutdown', function () {
  this.timeout(60_000);
  let h: InboundHarness;
  let productId: string;
  const started: RunningInboundReceiver[] = [];

  async function start(over: Partial<InboundReceiverDeps> = {}) {
    const registry = new Registry();
    const receiver = await startInboundReceiver({
      host: '127.0.0.1',
      port: 0,
      maxBytes: MAX_BYTES,
      db: h.db,
      events: h.publisher,
      logger: h.logger,
      registry,
      clock: h.clock,
      ...over,
    });
    started.push(receiver);
    const messages = (outcome: string) =>
      counterValue(registry, 'lattice_mail_inbound_messages_total', { outcome });
    const refused = (reason: string) =>
      counterValue(registry, 'lattice_mail_inbound_connections_refused_total', { reason });
    return { receiver, registry, messages, refused };
  }

  before(async () => {
    h = await startInboundHarness('inbound-limits');
    productId = await h.newProduct();
  });
  after(async () => {
    for (const r of started) await r.close();
    await h?.close();
  });

  const seededHard = async () => {
    const id = await h.seedEmail(productId, FIXTURES.postfixHard.recipient);
    return { id, raw: fixtureFor('postfixHard', id) };
  };

  it(`accepts a report of exactly ${MAX_BYTES} bytes and refuses one byte more with 552, counted`, async () => {
    const { receiver, messages } = await start();
    const dialog = await openSmtpDialog(receiver.port);
    const ehlo = await dialog.command('EHLO mta.example.org');
    dialog.end();
    expect(ehlo.split('\n').map((l) => l.slice(4))).to.include(`SIZE ${MAX_BYTES}`);

    const within = await seededHard();
    const atCap = await deliver(receiver.port, paddedTo(within.raw, MAX_BYTES), verpOf(within.id));
    expect(atCap.code, atCap.text).to.equal(250);
    expect(await h.eventsOf(within.id)).to.have.length(1);

    const over = await seededHard();
    const records = await h.topicRecords();
    const aboveCap = await deliver(receiver.port, paddedTo(over.raw, MAX_BYTES + 1), verpOf(over.id));
    expect(aboveCap.code, aboveCap.text).to.equal(552);
    expect(await h.topicRecords()).to.equal(records);
    expect(await messages('too_large')).to.equal(1);
  });

  it('refuses a declared SIZE above the cap at MAIL FROM and takes one at the cap', async () => {
    const { receiver } = await start();
    const dialog = await openSmtpDialog(receiver.port);
    await dialog.command('EHLO mta.example.org');
    expect(await dialog.command(`MAIL FROM:<> SIZE=${MAX_BYTES + 1}`)).to.match(/^552 /);
    expect(await dialog.command(`MAIL FROM:<> SIZE=${MAX_BYTES}`)).to.match(/^250 /);
    dialog.end();
  });

  it('answers bad commands with a 5xx and the same session then delivers a report', async () => {
    const { receiver, messages } = await start();
    const { id, raw } = await seededHard();
    const dialog = await openSmtpDialog(receiver.port);
    expect(dialog.greeting).to.match(/^220 /);
    const ehlo = await dialog.command('EHLO mta.example.org');
    expect(ehlo).to.not.match(/STARTTLS|AUTH|DSN/);
    expect(await dialog.command('XYZZY plugh')).to.match(/^5\d\d /);
    expect(await dialog.command('RCPT TO:<a@example.org>')).to.match(/^503 /);
    expect(await dialog.command('AUTH PLAIN AGFubgBzZWNyZXQ=')).to.match(/^5\d\d /);
    expect(await dialog.command('STARTTLS')).to.match(/^5\d\d /);
    expect(await dialog.command('MAIL FROM:<not an address')).to.match(/^501 /);
    expect(await dialog.command('MAIL FROM:<>')).to.match(/^250 /);
    expect(await dialog.command('RCPT TO:<>')).to.match(/^501 /);
    // Every recipient is accepted, up to the most a message may have.
    expect(await dialog.command(`RCPT TO:<${verpOf(id)}>`)).to.match(/^250 /);
    for (let i = 2; i <= INBOUND_MAX_RECIPIENTS; i += 1) {
      expect(await dialog.command(`RCPT TO:<other-${i}@send.northwind.test>`)).to.match(/^250 /);
    }
    expect(await dialog.command('RCPT TO:<one-too-many@send.northwind.test>')).to.match(/^452 /);
    expect(await dialog.command('DATA')).to.match(/^354 /);
    expect(await dialog.message(raw)).to.match(/^250 /);
    expect(await dialog.command('QUIT')).to.match(/^221 /);
    expect(await h.eventsOf(id)).to.have.length(1);
    expect(await messages('bounce')).to.equal(1);
  });

  it('drops a session that speaks HTTP with 421 and goes on serving others', async () => {
    const { receiver } = await start();
    const web = await openSmtpDialog(receiver.port);
    expect(await web.command('GET / HTTP/1.1')).to.match(/^421 /);
    await web.closed;
    const next = await openSmtpDialog(receiver.port);
    expect(await next.command('EHLO mta.example.org')).to.match(/^250/);
    next.end();
  });

  it('serves 5 connections from one address at once and greets the 6th with 421; a freed slot is taken again', async () => {
    const { receiver, registry, refused } = await start({ maxConnectionsPerAddress: 5 });
    const held = [];
    for (let i = 0; i < 5; i++) {
      const d = await openSmtpDialog(receiver.port);
      expect(d.greeting, `connection ${i + 1}`).to.match(/^220 /);
      held.push(d);
    }
    const sixth = await openSmtpDialog(receiver.port);
    expect(sixth.greeting).to.match(/^421 /);
    await sixth.closed;
    expect(await refused('per_address')).to.equal(1);
    expect(await counterValue(registry, 'lattice_mail_inbound_connections_total', {})).to.equal(6);
    for (const d of held) expect(await d.command('NOOP')).to.match(/^250/);
    held[0]!.end();
    await held[0]!.closed;
    // The server learns of the close a moment after the client: a new one may race it, so the
    // slot is asked for until it is given (a refusal is answered at once, never a hang).
    let next = await openSmtpDialog(receiver.port);
    while (!/^220 /.test(next.greeting)) {
      await next.closed;
      next = await openSmtpDialog(receiver.port);
    }
    expect(await next.command('EHLO mta.example.org')).to.match(/^250/);
    next.end();
    for (const d of held.slice(1)) d.end();
  });

  it('closes a connection that sends nothing with 421, and keeps one that spoke', async () => {
    const { receiver, refused } = await start({ firstCommandTimeoutMs: 300 });
    const silent = await openSmtpDialog(receiver.port);
    const talker = await openSmtpDialog(receiver.port);
    expect(await talker.command('EHLO mta.example.org')).to.match(/^250/);
    expect(await silent.nextReply()).to.match(/^421 4\.4\.2 /);
    await silent.closed;
    expect(await refused('silent')).to.equal(1);
    expect(await talker.command('NOOP')).to.match(/^250/);
    talker.end();
  });

  it('answers 451 while Kafka is unreachable, and the retried report is recorded once', async () => {
    const nowhere = new Kafka({
      clientId: 'nowhere',
      brokers: ['127.0.0.1:1'],
      connectionTimeout: 300,
      // The idempotent producer refuses retries: 0; a few quick ones, then it gives up.
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 300 },
      logLevel: logLevel.NOTHING,
    });
    const failing = createMailEventPublisher({
      producer: () => createRecordProducer(nowhere),
      topic: h.topic,
      logger: h.logger,
    });
    const down = await start({ events: failing });
    const { id, raw } = await seededHard();
    const records = await h.topicRecords();
    const refused = await deliver(down.receiver.port, raw, verpOf(id));
    expect(refused.code, refused.text).to.equal(451);
    expect(await down.messages('deferred')).to.equal(1);
    expect(await down.messages('bounce')).to.equal(0);
    expect(await h.topicRecords()).to.equal(records);
    // A report that needs no event is still answered 250: it would never get better.
    expect((await deliver(down.receiver.port, readFixture('malformedGarbage'), verpOf(id))).code).to.equal(
      250,
    );
    await failing.close();

    // The reporting MTA tries again once Kafka is back.
    const up = await start();
    expect((await deliver(up.receiver.port, raw, verpOf(id))).code).to.equal(250);
    expect(await h.eventsOf(id)).to.have.length(1);
  });

  it('answers 451 while PostgreSQL is unreachable', async () => {
    const unreachable = createDb({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/lattice',
      logger: h.logger,
    });
    try {
      const { receiver, messages } = await start({ db: unreachable });
      const { id, raw } = await seededHard();
      const answer = await deliver(receiver.port, raw, verpOf(id));
      expect(answer.code, answer.text).to.equal(451);
      expect(await messages('deferred')).to.equal(1);
    } finally {
      await unreachable.destroy();
    }
  });

  it('on close answers the message being received, then closes idle sessions and stops listening', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let publishing!: () => void;
    const publishStarted = new Promise<void>((resolve) => {
      publishing = resolve;
    });
    const gated: MailEventPublisher = {
      async publish(event) {
        publishing();
        await gate;
        await h.publisher.publish(event);
      },
      close: async () => undefined,
    };
    const { receiver } = await start({ events: gated });
    const idle = await openSmtpDialog(receiver.port);
    await idle.command('EHLO mta.example.org');
    const { id, raw } = await seededHard();
    const sending = deliver(receiver.port, raw, verpOf(id));
    await publishStarted;

    let closed = false;
    const closing = receiver.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).to.equal(false);
    // A new command is refused while the message in flight is still being settled.
    expect(await idle.command('NOOP')).to.match(/^421 /);

    release();
    expect((await sending).code).to.equal(250);
    await closing;
    await idle.closed;
    expect(await h.eventsOf(id)).to.have.length(1);
    const refused = await openSmtpDialog(receiver.port).catch((err: NodeJS.ErrnoException) => err.code);
    expect(refused).to.equal('ECONNREFUSED');
  });
});
