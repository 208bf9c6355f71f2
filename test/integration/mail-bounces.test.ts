// Asynchronous bounces and complaints end to end: an email is sent and delivered through the
// real smart host, then a report as a real MTA writes it (the inbound fixtures: Postfix DSN,
// Outlook.com JMRP complaint) arrives over SMTP at the inbound role's receiver, is matched to the
// email (VERP envelope recipient, or the quoted headers) and applied by the actors role's
// email-state actor: a hard bounce after delivery makes it bounced and suppresses the address, a
// soft one only shows in last_event, a complaint suppresses and leaves the status.
import { expect } from 'chai';
import { deliverReport as deliverTo, fixtureReport as report } from './mail/inbound-reports.ts';
import { type MailPlatform, startMailPlatform } from './mail/mail-platform.ts';

describe('mail bounces and complaints through the inbound receiver (real SMTP both ways, Kafka, PostgreSQL)', function () {
  this.timeout(60_000);
  let p: MailPlatform;

  before(async () => {
    p = await startMailPlatform({ label: 'mail-bounces' });
  });
  after(async () => {
    await p?.close();
  });

  async function delivered(to: string): Promise<string> {
    const sent = await p.call<{ id: string }>('POST', '/mail/emails', p.product.ownerToken, {
      from: `news@${p.product.domain}`,
      to,
      subject: 'Hello',
      html: '<p>Hello</p>',
    });
    expect(sent.status, sent.text).to.equal(202);
    await p.waitForEmail(sent.json.id, (e) => e.status === 'delivered' && e.last_event !== null);
    return sent.json.id;
  }

  const deliverReport = (rcpt: string, raw: string) => deliverTo(p.inboundPort, rcpt, raw);

  const suppression = (address: string) =>
    p.db('mail_suppressions').where({ product_id: p.product.productId, address }).first();

  it('a Postfix DSN (5.1.1) to the VERP address after delivery: bounced (hard) with the Diagnostic-Code, suppressed', async () => {
    const recipient = 'ann.lee@example.net';
    const id = await delivered(recipient);
    const answer = await deliverReport(
      `bounce+${id}@send.${p.product.domain}`,
      report(
        'postfix-hard-user-unknown.eml',
        { emailId: '3f6c2a9e-8b1d-4c57-9a0e-5d2b7c41e903', recipient },
        { emailId: id, recipient },
      ),
    );
    expect(answer).to.match(/^250/);
    const email = await p.waitForEmail(id, (e) => e.status === 'bounced');
    expect(email.last_event).to.include({ type: 'bounced', bounce_kind: 'hard' });
    expect(email.last_event!.reason).to.match(/550 5\.1\.1/);
    expect(await suppression(recipient)).to.include({ reason: 'hard_bounce', email_id: id });
    const event = await p.db('mail_email_events').where({ email_id: id, type: 'bounced' }).first();
    const delivery = await p.db('mail_email_events').where({ email_id: id, type: 'delivered' }).first();
    expect(event.provider_message_id, 'the bounce names the smart host’s id').to.equal(
      delivery.provider_message_id,
    );
  });

  it('a Postfix DSN that gave up on a full mailbox (4.2.2): a soft bounce in last_event, still delivered, nothing suppressed', async () => {
    const recipient = 'dora.fox@mailbox.example';
    const id = await delivered(recipient);
    await deliverReport(
      `bounce+${id}@send.${p.product.domain}`,
      report(
        'postfix-soft-mailbox-full.eml',
        { emailId: 'a41f9c07-6e2b-4d3a-8f15-c7b9e02d6a18', recipient },
        { emailId: id, recipient },
      ),
    );
    const email = await p.waitForEmail(id, (e) => e.last_event?.type === 'bounced');
    expect(email.status).to.equal('delivered');
    expect(email.last_event).to.include({ bounce_kind: 'soft' });
    expect(await suppression(recipient)).to.equal(undefined);
  });

  it('an Outlook.com JMRP complaint to a plain feedback address: complained, suppressed, status left as it is', async () => {
    const recipient = 'frank.miller@outlook.com';
    const id = await delivered(recipient);
    await deliverReport(
      'fbl@feedback.example.test',
      report(
        'microsoft-jmrp-abuse-arf.eml',
        { emailId: '9b3c6f28-d41e-4a75-8c0b-6e2f9a17d384', recipient },
        { emailId: id, recipient },
      ),
    );
    const email = await p.waitForEmail(id, (e) => e.last_event?.type === 'complained');
    expect(email.status).to.equal('delivered');
    expect(await suppression(recipient)).to.include({ reason: 'complaint', email_id: id });
  });

  it('a report about no email of ours: 250, nothing recorded', async () => {
    const before = await p
      .db('mail_email_events')
      .where({ product_id: p.product.productId })
      .count<{ c: string }[]>({ c: '*' });
    const answer = await deliverReport(
      `bounce+00000000-0000-4000-8000-00000000abcd@send.${p.product.domain}`,
      report(
        'postfix-hard-user-unknown.eml',
        { emailId: '3f6c2a9e-8b1d-4c57-9a0e-5d2b7c41e903', recipient: 'ann.lee@example.net' },
        { emailId: '00000000-0000-4000-8000-00000000abcd', recipient: 'ann.lee@example.net' },
      ),
    );
    expect(answer).to.match(/^250/);
    const after = await p
      .db('mail_email_events')
      .where({ product_id: p.product.productId })
      .count<{ c: string }[]>({ c: '*' });
    expect(after[0]!.c).to.equal(before[0]!.c);
  });
});
