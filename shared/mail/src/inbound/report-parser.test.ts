import { expect } from 'chai';
import { FIXTURES, type FixtureName, readFixture } from './fixtures/fixtures.ts';
import { type DsnRecipient, dsnBounceKind, type ParsedReport, parseReport } from './report-parser.ts';

const msgId = (name: FixtureName) => `<${FIXTURES[name].emailId}@northwind.test>`;
const verp = (name: FixtureName) => `bounce+${FIXTURES[name].emailId}@send.northwind.test`;

function withLineEnds(raw: Buffer, eol: '\n' | '\r\n'): Buffer {
  return Buffer.from(raw.toString('latin1').replace(/\r\n/g, '\n').replace(/\n/g, eol), 'latin1');
}

/** A multipart/report around the given parts (each: headers and body, LF line ends). */
function report(reportType: string, parts: string[]): Buffer {
  const body = parts.map((p) => `--b1\n${p}\n`).join('');
  return Buffer.from(
    `From: mailer-daemon@mx.example.org\nMIME-Version: 1.0\nContent-Type: multipart/report; report-type=${reportType}; boundary="b1"\n\n${body}--b1--\n`,
  );
}

const recipient = (over: Partial<DsnRecipient>): DsnRecipient => ({
  finalRecipient: 'a@example.org',
  originalRecipient: null,
  action: 'failed',
  status: null,
  diagnosticCode: null,
  ...over,
});

describe('report parser', () => {
  it('reads the Postfix hard bounce: recipient, 5.1.1, the unfolded reason and the returned headers', async () => {
    const parsed = await parseReport(readFixture('postfixHard'));
    expect(parsed).to.deep.equal({
      kind: 'dsn',
      recipients: [
        {
          finalRecipient: 'ann.lee@example.net',
          originalRecipient: 'ann.lee@example.net',
          action: 'failed',
          status: '5.1.1',
          diagnosticCode:
            '550 5.1.1 <ann.lee@example.net>: Recipient address rejected: User unknown in virtual mailbox table',
        },
      ],
      envelopeId: null,
      returned: {
        messageId: msgId('postfixHard'),
        returnPath: verp('postfixHard'),
        to: 'ann.lee@example.net',
      },
      referencedMessageIds: [],
    });
    if (parsed.kind !== 'dsn') throw new Error('not a dsn');
    expect(dsnBounceKind(parsed.recipients[0]!)).to.equal('hard');
  });

  it("reads Exim's own DSN: `rfc822;` without a space, Status 5.0.0, the message/rfc822 and References", async () => {
    const parsed = await parseReport(readFixture('eximHard'));
    if (parsed.kind !== 'dsn') throw new Error(`not a dsn: ${JSON.stringify(parsed)}`);
    expect(parsed.recipients).to.have.length(1);
    expect(parsed.recipients[0]!.finalRecipient).to.equal('carl@mailhost.example.org');
    expect(parsed.recipients[0]!.status).to.equal('5.0.0');
    expect(parsed.recipients[0]!.diagnosticCode).to.equal(
      '550 5.1.1 <carl@mailhost.example.org>: Recipient address rejected: User unknown',
    );
    expect(dsnBounceKind(parsed.recipients[0]!)).to.equal('hard');
    expect(parsed.returned).to.deep.equal({
      messageId: msgId('eximHard'),
      returnPath: verp('eximHard'),
      to: 'carl@mailhost.example.org',
    });
    expect(parsed.referencedMessageIds).to.deep.equal([msgId('eximHard')]);
  });

  it('reads the soft bounce Postfix sends when it gives up on a 4.2.2', async () => {
    const parsed = await parseReport(readFixture('postfixSoft'));
    if (parsed.kind !== 'dsn') throw new Error('not a dsn');
    expect(parsed.recipients[0]!.status).to.equal('4.2.2');
    expect(dsnBounceKind(parsed.recipients[0]!)).to.equal('soft');
    expect(parsed.recipients[0]!.diagnosticCode).to.equal(
      "452-4.2.2 The recipient's inbox is out of storage space. Please direct the recipient to " +
        '452 4.2.2 https://support.mailbox.example/?p=OverQuotaTemp',
    );
  });

  it('reads the delay warning as a DSN whose recipient bounced in no way', async () => {
    const parsed = await parseReport(readFixture('postfixDelayed'));
    if (parsed.kind !== 'dsn') throw new Error('not a dsn');
    expect(parsed.recipients[0]!.action).to.equal('delayed');
    expect(dsnBounceKind(parsed.recipients[0]!)).to.equal(null);
  });

  it('reads the Gmail-style abuse report: type, recipient, and the quoted Message-ID', async () => {
    expect(await parseReport(readFixture('gmailStyleComplaint'))).to.deep.equal({
      kind: 'arf',
      feedbackType: 'abuse',
      userAgent: 'Mailbox-Feedback/2.0',
      originalMailFrom: null,
      recipient: 'erin.shaw@mailbox.example',
      arrivalDate: 'Tue, 24 Nov 2026 10:58:40 +0000',
      envelopeId: null,
      returned: {
        messageId: msgId('gmailStyleComplaint'),
        returnPath: null,
        to: 'erin.shaw@mailbox.example',
      },
      referencedMessageIds: [],
    });
  });

  it("reads Microsoft's JMRP report: our VERP sender, and the recipient from the base64 message's To", async () => {
    const parsed = await parseReport(readFixture('microsoftComplaint'));
    if (parsed.kind !== 'arf') throw new Error('not an arf');
    expect(parsed.userAgent).to.equal('Microsoft Junk Mail Reporting Program');
    expect(parsed.originalMailFrom).to.equal(verp('microsoftComplaint'));
    expect(parsed.recipient).to.equal('frank.miller@outlook.com');
    expect(parsed.returned?.messageId).to.equal(msgId('microsoftComplaint'));
  });

  it('reads a delivery status a gateway attached as quoted-printable text/plain with upper-case fields', async () => {
    const parsed = await parseReport(readFixture('sloppyTextPlain'));
    if (parsed.kind !== 'dsn') throw new Error(`not a dsn: ${JSON.stringify(parsed)}`);
    expect(parsed.recipients).to.deep.equal([
      {
        finalRecipient: 'hana@legacy.example',
        originalRecipient: null,
        action: 'failed',
        status: '5.1.1',
        diagnosticCode: 'User hana (hana@legacy.example) not listed in Domino Directory',
      },
    ]);
  });

  it('answers malformed, with the reason, for garbage, an empty message and a report without status', async () => {
    expect(await parseReport(readFixture('malformedGarbage'))).to.deep.equal({
      kind: 'malformed',
      why: 'no delivery-status or feedback-report part',
    });
    expect(await parseReport(readFixture('malformedEmpty'))).to.deep.equal({
      kind: 'malformed',
      why: 'empty message',
    });
    expect(await parseReport(Buffer.from('\r\n \r\n'))).to.include({ kind: 'malformed' });
    expect(await parseReport(readFixture('malformedNoStatus'))).to.deep.equal({
      kind: 'malformed',
      why: 'a delivery status without recipients',
    });
  });

  it('reads every fixture alike with CRLF and with LF line ends', async () => {
    for (const name of Object.keys(FIXTURES) as FixtureName[]) {
      const raw = readFixture(name);
      const [crlf, lf] = await Promise.all([
        parseReport(withLineEnds(raw, '\r\n')),
        parseReport(withLineEnds(raw, '\n')),
      ]);
      expect(lf, name).to.deep.equal(crlf);
      expect(crlf, name).to.deep.equal(await parseReport(raw));
    }
  });

  it('reads a base64-encoded delivery status, lower-case field names and recipients without blank lines', async () => {
    const status = [
      'reporting-mta: dns; mx.example.org',
      '',
      'final-recipient: rfc822; one@example.org',
      'action: failed',
      'status: 5.2.1',
      'final-recipient: rfc822; two@example.org',
      'action: relayed',
      'status: 2.0.0',
      '',
    ].join('\r\n');
    const parsed = await parseReport(
      report('delivery-status', [
        `Content-Type: message/delivery-status\nContent-Transfer-Encoding: base64\n\n${Buffer.from(status).toString('base64')}`,
      ]),
    );
    if (parsed.kind !== 'dsn') throw new Error(`not a dsn: ${JSON.stringify(parsed)}`);
    expect(parsed.recipients.map((r) => [r.finalRecipient, r.action, r.status])).to.deep.equal([
      ['one@example.org', 'failed', '5.2.1'],
      ['two@example.org', 'relayed', '2.0.0'],
    ]);
    expect(parsed.returned).to.equal(null);
  });

  it('decides the kind by the part found, whatever report-type says', async () => {
    const arf = await parseReport(
      report('delivery-status', [
        'Content-Type: message/feedback-report\n\nFeedback-Type: fraud\nVersion: 1',
      ]),
    );
    expect(arf).to.include({ kind: 'arf', feedbackType: 'fraud' });
    const mixed = Buffer.from(
      'Content-Type: multipart/mixed; boundary="m"\n\n--m\nContent-Type: message/delivery-status\n\n' +
        'Final-Recipient: rfc822; a@example.org\nAction: failed\nStatus: 5.0.0\n--m--\n',
    );
    expect(await parseReport(mixed)).to.include({ kind: 'dsn' });
  });

  it('reads report fields from text only inside a multipart/report that declares the kind', async () => {
    const fields = 'Final-Recipient: rfc822; a@example.org\nAction: failed\nStatus: 5.1.1';
    const quoted = Buffer.from(`From: a person <p@example.org>\nContent-Type: text/plain\n\n${fields}\n`);
    expect(await parseReport(quoted)).to.deep.equal({
      kind: 'malformed',
      why: 'no delivery-status or feedback-report part',
    });
    expect(
      await parseReport(report('delivery-status', [`Content-Type: text/plain\n\n${fields}`])),
    ).to.include({
      kind: 'dsn',
    });
    expect(
      await parseReport(report('feedback-report', ['Content-Type: text/plain\n\nFeedback-Type: abuse'])),
    ).to.include({ kind: 'arf', feedbackType: 'abuse' });
  });

  it('answers malformed for a feedback report without Feedback-Type', async () => {
    const parsed = await parseReport(
      report('feedback-report', ['Content-Type: message/feedback-report\n\nUser-Agent: x/1\nVersion: 1']),
    );
    expect(parsed).to.deep.equal({ kind: 'malformed', why: 'a feedback report without Feedback-Type' });
  });

  it('takes Original-Rcpt-To over the returned To, and the To when the report names no recipient', async () => {
    const returned = 'Content-Type: text/rfc822-headers\n\nTo: "Lee, Ann" <Ann@Example.org>, b@example.org';
    const withRcpt = (await parseReport(
      report('feedback-report', [
        'Content-Type: message/feedback-report\n\nFeedback-Type: abuse\nOriginal-Rcpt-To: <c@example.org>',
        returned,
      ]),
    )) as ParsedReport & { recipient: string };
    expect(withRcpt.recipient).to.equal('c@example.org');
    const withoutRcpt = (await parseReport(
      report('feedback-report', ['Content-Type: message/feedback-report\n\nFeedback-Type: abuse', returned]),
    )) as ParsedReport & { recipient: string };
    expect(withoutRcpt.recipient).to.equal('ann@example.org');
  });

  it('classifies a failed recipient by its status class, then by the reply code, else undetermined', () => {
    expect(dsnBounceKind(recipient({ status: '5.7.1' }))).to.equal('hard');
    expect(dsnBounceKind(recipient({ status: '4.7.1' }))).to.equal('soft');
    // A status beats a reply code that says otherwise (Postfix writes 4.x.x after a 5xx in some paths).
    expect(dsnBounceKind(recipient({ status: '4.2.2', diagnosticCode: '552 mailbox full' }))).to.equal(
      'soft',
    );
    expect(dsnBounceKind(recipient({ diagnosticCode: '550 no such user' }))).to.equal('hard');
    expect(dsnBounceKind(recipient({ diagnosticCode: '451-4.3.0 try later' }))).to.equal('soft');
    expect(dsnBounceKind(recipient({ status: '2.0.0', diagnosticCode: 'no code here' }))).to.equal(
      'undetermined',
    );
    expect(dsnBounceKind(recipient({ diagnosticCode: '5500 not a reply code' }))).to.equal('undetermined');
    for (const action of ['delayed', 'relayed', 'delivered', 'expanded', null]) {
      expect(dsnBounceKind(recipient({ action, status: '5.1.1' })), String(action)).to.equal(null);
    }
  });
});
