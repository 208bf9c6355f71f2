import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { Registry } from 'prom-client';
import { FIXTURES, type FixtureName, fixtureFor, readFixture } from './fixtures/fixtures.ts';
import { type RunningInboundReceiver, startInboundReceiver } from './inbound-receiver.ts';
import {
  counterValue,
  type InboundHarness,
  START_MS,
  startInboundHarness,
  verpOf,
} from './testing/inbound-harness.ts';
import { openSmtpDialog } from './testing/smtp-dialog.ts';

const FEEDBACK_ADDRESS = 'fbl@feedback.lattice-mail.test';

describe('inbound receiver: reports over real SMTP to events on real Kafka', function () {
  this.timeout(60_000);
  let h: InboundHarness;
  let receiver: RunningInboundReceiver;
  let registry: Registry;
  let productId: string;

  before(async () => {
    h = await startInboundHarness('inbound');
    registry = new Registry();
    receiver = await startInboundReceiver({
      host: '127.0.0.1',
      port: 0,
      maxBytes: 10 * 1024 * 1024,
      db: h.db,
      events: h.publisher,
      logger: h.logger,
      registry,
      clock: h.clock,
    });
  });
  after(async () => {
    await receiver?.close();
    await h?.close();
  });
  beforeEach(async () => {
    productId = await h.newProduct();
  });

  /** Sends a report as the reporting MTA does (null sender), answers the final reply. */
  async function deliver(raw: Buffer, to: string): Promise<string> {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: receiver.port,
      secure: false,
      ignoreTLS: true,
    });
    try {
      const info = await transport.sendMail({ envelope: { from: '', to: [to] }, raw });
      return info.response;
    } finally {
      transport.close();
    }
  }

  const messages = (outcome: string) =>
    counterValue(registry, 'lattice_mail_inbound_messages_total', { outcome });

  async function seeded(name: FixtureName): Promise<{ id: string; raw: Buffer }> {
    const id = await h.seedEmail(productId, FIXTURES[name].recipient);
    return { id, raw: fixtureFor(name, id) };
  }

  for (const [name, label] of [
    ['postfixHard', 'a Postfix'],
    ['eximHard', 'an Exim'],
  ] as const) {
    it(`records ${label} hard bounce sent to the VERP address as one hard bounced event`, async () => {
      const before = await messages('bounce');
      const { id, raw } = await seeded(name);
      expect(await deliver(raw, verpOf(id))).to.match(/^250 /);
      const [event] = await h.eventsOf(id);
      expect({ ...event }).to.deep.equal({
        event_id: event!.event_id,
        product_id: productId,
        email_id: id,
        type: 'bounced',
        recipient: FIXTURES[name].recipient,
        bounce_kind: 'hard',
        reason: (
          {
            postfixHard:
              '550 5.1.1 <ann.lee@example.net>: Recipient address rejected: User unknown in virtual mailbox table',
            eximHard: '550 5.1.1 <carl@mailhost.example.org>: Recipient address rejected: User unknown',
          } as const
        )[name],
        provider_message_id: `queued-${id.slice(0, 8)}`,
        link: null,
        occurred_at_ms: START_MS,
      });
      expect(await messages('bounce')).to.equal(before + 1);
      expect(
        await counterValue(registry, 'lattice_mail_inbound_events_total', {
          type: 'bounced',
          bounce_kind: 'hard',
        }),
      ).to.be.at.least(1);
    });
  }

  it('records the soft bounce of a full mailbox with its reason', async () => {
    const { id, raw } = await seeded('postfixSoft');
    h.clock.advance(60_000);
    expect(await deliver(raw, verpOf(id))).to.match(/^250 /);
    const [event] = await h.eventsOf(id);
    expect(event).to.include({ type: 'bounced', bounce_kind: 'soft', recipient: 'dora.fox@mailbox.example' });
    expect(event!.reason).to.match(/^452-4\.2\.2 The recipient's inbox is out of storage space/);
    expect(event!.occurred_at_ms).to.equal(h.clock.nowMs());
  });

  it('records a complaint sent to a plain address, matched by the quoted Message-ID alone', async () => {
    const before = await messages('complaint');
    const { id, raw } = await seeded('gmailStyleComplaint');
    expect(raw.toString('latin1')).to.not.include(verpOf(id));
    expect(await deliver(raw, FEEDBACK_ADDRESS)).to.match(/^250 /);
    const [event] = await h.eventsOf(id);
    expect(event).to.include({
      product_id: productId,
      type: 'complained',
      recipient: 'erin.shaw@mailbox.example',
      bounce_kind: null,
      reason: 'abuse',
    });
    expect(await messages('complaint')).to.equal(before + 1);
  });

  it("records Microsoft's JMRP complaint, matched by the VERP sender it quotes", async () => {
    const { id, raw } = await seeded('microsoftComplaint');
    expect(await deliver(raw, 'jmrp@feedback.lattice-mail.test')).to.match(/^250 /);
    const [event] = await h.eventsOf(id);
    expect(event).to.include({ type: 'complained', recipient: 'frank.miller@outlook.com' });
  });

  it('answers 250 to a delay warning and produces nothing, counted as ignored', async () => {
    const before = { ignored: await messages('ignored'), records: await h.topicRecords() };
    const { id, raw } = await seeded('postfixDelayed');
    expect(await deliver(raw, verpOf(id))).to.match(/^250 /);
    expect(await h.topicRecords()).to.equal(before.records);
    expect(await messages('ignored')).to.equal(before.ignored + 1);
  });

  it('answers 250 to a report about no email we know, and to one about another recipient, counted as unmatched', async () => {
    const before = { unmatched: await messages('unmatched'), records: await h.topicRecords() };
    const unknownId = randomUUID();
    expect(await deliver(fixtureFor('postfixHard', unknownId), verpOf(unknownId))).to.match(/^250 /);
    const otherRecipient = await h.seedEmail(productId, 'somebody.else@example.net');
    expect(await deliver(fixtureFor('postfixHard', otherRecipient), verpOf(otherRecipient))).to.match(
      /^250 /,
    );
    expect(await h.topicRecords()).to.equal(before.records);
    expect(await messages('unmatched')).to.equal(before.unmatched + 2);
  });

  it('answers 250 to garbage, an empty message and a report without status, counted as malformed', async () => {
    const before = { malformed: await messages('malformed'), records: await h.topicRecords() };
    const { id } = await seeded('malformedNoStatus');
    expect(await deliver(fixtureFor('malformedNoStatus', id), verpOf(id))).to.match(/^250 /);
    expect(await deliver(readFixture('malformedGarbage'), verpOf(id))).to.match(/^250 /);
    // nodemailer refuses to send an empty message; a reporting MTA could.
    const dialog = await openSmtpDialog(receiver.port);
    expect(await dialog.command('EHLO mta.example.org')).to.match(/^250/);
    expect(await dialog.command('MAIL FROM:<>')).to.match(/^250 /);
    expect(await dialog.command(`RCPT TO:<${verpOf(id)}>`)).to.match(/^250 /);
    expect(await dialog.command('DATA')).to.match(/^354 /);
    expect(await dialog.message(readFixture('malformedEmpty'))).to.match(/^250 /);
    dialog.end();
    expect(await h.topicRecords()).to.equal(before.records);
    expect(await messages('malformed')).to.equal(before.malformed + 3);
  });

  it('gives a report delivered twice the same event id, so consumers drop the repeat', async () => {
    const { id, raw } = await seeded('postfixHard');
    expect(await deliver(raw, verpOf(id))).to.match(/^250 /);
    expect(await deliver(raw, verpOf(id))).to.match(/^250 /);
    const events = await h.eventsOf(id, 2);
    expect(events).to.have.length(2);
    expect(events[1]!.event_id).to.equal(events[0]!.event_id);
  });
});
