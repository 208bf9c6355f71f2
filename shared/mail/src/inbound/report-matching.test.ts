import { isUuid } from '@lattice/core';
import { expect } from 'chai';
import { FIXTURES, type FixtureName, readFixture } from './fixtures/fixtures.ts';
import type { ReportEmailLookup, ReportedEmail } from './report-email-lookup.ts';
import {
  candidateEmailIds,
  type DecideReportInput,
  decideReport,
  MAX_REASON_CHARS,
  reportEventId,
} from './report-matching.ts';
import type { ArfReport, DsnRecipient, DsnReport, ParsedReport } from './report-parser.ts';
import { parseReport } from './report-parser.ts';

const PRODUCT = '11111111-2222-4333-8444-555555555555';
const DIGEST = 'a'.repeat(64);
const ID = {
  a: '0b9f8a52-7c1e-4f59-9a49-2a1d5e2b7c10',
  b: '1c0a9b63-8d2f-4a6a-8b5a-3b2e6f3c8d21',
  c: '2d1bac74-9e30-4b7b-9c6b-4c3f7a4d9e32',
};

function email(id: string, toAddress: string): ReportedEmail {
  return { id, productId: PRODUCT, toAddress, providerMessageId: `queued-${id.slice(0, 4)}` };
}

/** An in-memory lookup that records what it was asked. */
function lookupOf(emails: ReportedEmail[]): ReportEmailLookup & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    async find(ids) {
      asked.push(ids);
      return emails.filter((e) => ids.includes(e.id));
    },
  };
}

function dsn(recipients: Partial<DsnRecipient>[], over: Partial<DsnReport> = {}): DsnReport {
  return {
    kind: 'dsn',
    recipients: recipients.map((r) => ({
      finalRecipient: 'ann@example.org',
      originalRecipient: null,
      action: 'failed',
      status: '5.1.1',
      diagnosticCode: '550 5.1.1 no such user',
      ...r,
    })),
    envelopeId: null,
    returned: null,
    referencedMessageIds: [],
    ...over,
  };
}

function arf(over: Partial<ArfReport> = {}): ArfReport {
  return {
    kind: 'arf',
    feedbackType: 'abuse',
    userAgent: null,
    originalMailFrom: null,
    recipient: null,
    arrivalDate: null,
    envelopeId: null,
    returned: null,
    referencedMessageIds: [],
    ...over,
  };
}

function input(report: ParsedReport, lookup: ReportEmailLookup, rcpts: string[] = []): DecideReportInput {
  return { report, envelopeRecipients: rcpts, lookup, nowMs: 1_795_500_000_000, messageDigest: DIGEST };
}

const verp = (id: string) => `bounce+${id}@send.northwind.test`;

describe('report matching', () => {
  it('lists the ids a report carries, most robust first, each once', () => {
    const report = dsn([{}], {
      envelopeId: ID.b.toUpperCase(),
      returned: { messageId: `<${ID.c}@northwind.test>`, returnPath: verp(ID.a), to: null },
      referencedMessageIds: [`<${ID.c}@northwind.test>`, '<CAF=x@mail.example>'],
    });
    expect(candidateEmailIds(report, ['postmaster@example.org', verp(ID.a)])).to.deep.equal([
      ID.a,
      ID.b,
      ID.c,
    ]);
    expect(
      candidateEmailIds(arf({ originalMailFrom: verp(ID.c), envelopeId: `<${ID.b}@northwind.test>` }), []),
    ).to.deep.equal([ID.b, ID.c]);
    expect(candidateEmailIds(arf({ envelopeId: 'not-ours-42' }), ['fbl@feedback.example'])).to.deep.equal([]);
  });

  it('turns a matched hard bounce into one event about the email, with its recipient and provider id', async () => {
    const lookup = lookupOf([email(ID.a, 'ann@example.org')]);
    const decision = await decideReport(
      input(dsn([{ finalRecipient: 'ann@example.org' }]), lookup, [verp(ID.a)]),
    );
    expect(decision).to.deep.equal({
      outcome: 'bounce',
      emailId: ID.a,
      why: '',
      events: [
        {
          event_id: reportEventId(DIGEST, ID.a, 'bounced'),
          product_id: PRODUCT,
          email_id: ID.a,
          type: 'bounced',
          recipient: 'ann@example.org',
          bounce_kind: 'hard',
          reason: '550 5.1.1 no such user',
          provider_message_id: 'queued-0b9f',
          link: null,
          occurred_at_ms: 1_795_500_000_000,
        },
      ],
    });
  });

  it('takes the first candidate that names an email, passing over ids of none', async () => {
    const lookup = lookupOf([email(ID.b, 'ann@example.org'), email(ID.c, 'ann@example.org')]);
    const report = dsn([{ status: '4.2.2' }], {
      returned: { messageId: `<${ID.b}@northwind.test>`, returnPath: verp(ID.c), to: null },
    });
    const decision = await decideReport(input(report, lookup, [verp(ID.a)]));
    expect(lookup.asked).to.deep.equal([[ID.a, ID.b, ID.c]]);
    expect(decision.emailId).to.equal(ID.b);
    expect(decision.events[0]).to.include({ bounce_kind: 'soft', email_id: ID.b });
  });

  it('bounces the email recipient that a forward reached under another Final-Recipient', async () => {
    const lookup = lookupOf([email(ID.a, 'ann@example.org')]);
    const report = dsn([{ finalRecipient: 'ann@forwarded.example', originalRecipient: 'ann@example.org' }]);
    const decision = await decideReport(input(report, lookup, [verp(ID.a)]));
    expect(decision.outcome).to.equal('bounce');
    expect(decision.events[0]!.recipient).to.equal('ann@example.org');
  });

  it('leaves unmatched a DSN whose failed recipient is not the email’s, and one that names no email', async () => {
    const lookup = lookupOf([email(ID.a, 'ann@example.org')]);
    const other = await decideReport(
      input(dsn([{ finalRecipient: 'bob@example.org' }]), lookup, [verp(ID.a)]),
    );
    expect(other).to.deep.include({ outcome: 'unmatched', emailId: ID.a, events: [] });
    // The email's recipient listed as delayed next to a failed stranger is no bounce either.
    const mixed = dsn([
      { finalRecipient: 'bob@example.org' },
      { finalRecipient: 'ann@example.org', action: 'delayed' },
    ]);
    expect((await decideReport(input(mixed, lookup, [verp(ID.a)]))).outcome).to.equal('unmatched');
    const unknown = await decideReport(input(dsn([{}]), lookup, [verp(ID.b)]));
    expect(unknown).to.deep.include({ outcome: 'unmatched', emailId: null, events: [] });
    const none = await decideReport(input(dsn([{}]), lookup, ['postmaster@example.org']));
    expect(none).to.deep.include({ outcome: 'unmatched', why: 'no email id in the report' });
  });

  it('ignores delay warnings and non-complaint feedback without looking anything up', async () => {
    const lookup = lookupOf([email(ID.a, 'ann@example.org')]);
    for (const action of ['delayed', 'relayed', 'delivered', 'expanded']) {
      const decision = await decideReport(input(dsn([{ action }]), lookup, [verp(ID.a)]));
      expect(decision, action).to.deep.include({ outcome: 'ignored', events: [] });
    }
    for (const feedbackType of ['not-spam', 'auth-failure', 'virus']) {
      const decision = await decideReport(input(arf({ feedbackType }), lookup, [verp(ID.a)]));
      expect(decision, feedbackType).to.deep.include({ outcome: 'ignored', events: [] });
    }
    expect(lookup.asked).to.deep.equal([]);
  });

  it('turns abuse, fraud and other feedback into a complaint about the email’s own recipient', async () => {
    const lookup = lookupOf([email(ID.a, 'ann@example.org')]);
    for (const feedbackType of ['abuse', 'fraud', 'other']) {
      // Feedback loops redact the recipient; the email has one, and it is the one complained about.
      const report = arf({
        feedbackType,
        recipient: 'redacted@mailbox.example',
        originalMailFrom: verp(ID.a),
      });
      const decision = await decideReport(input(report, lookup, ['fbl@feedback.example']));
      expect(decision.outcome, feedbackType).to.equal('complaint');
      expect(decision.events[0]).to.include({
        type: 'complained',
        recipient: 'ann@example.org',
        bounce_kind: null,
        reason: feedbackType,
        email_id: ID.a,
      });
    }
  });

  it('passes malformed reports through and lets a failing lookup reject', async () => {
    const malformed = await decideReport(input({ kind: 'malformed', why: 'empty message' }, lookupOf([])));
    expect(malformed).to.deep.equal({
      outcome: 'malformed',
      events: [],
      emailId: null,
      why: 'empty message',
    });
    const failing: ReportEmailLookup = {
      find: () => Promise.reject(new Error('connection refused')),
    };
    const err = await decideReport(input(dsn([{}]), failing, [verp(ID.a)])).catch((e: Error) => e);
    expect((err as Error).message).to.equal('connection refused');
  });

  it(`keeps a reason of ${MAX_REASON_CHARS} characters whole and clips a longer one`, async () => {
    const lookup = lookupOf([email(ID.a, 'ann@example.org')]);
    const at = 'x'.repeat(MAX_REASON_CHARS);
    const kept = await decideReport(input(dsn([{ diagnosticCode: at }]), lookup, [verp(ID.a)]));
    expect(kept.events[0]!.reason).to.equal(at);
    const clipped = await decideReport(input(dsn([{ diagnosticCode: `${at}y` }]), lookup, [verp(ID.a)]));
    expect(clipped.events[0]!.reason).to.have.length(MAX_REASON_CHARS);
    expect(clipped.events[0]!.reason!.endsWith('x…')).to.equal(true);
  });

  it('gives the same report the same event id, and another report or email another one', () => {
    const id = reportEventId(DIGEST, ID.a, 'bounced');
    expect(isUuid(id)).to.equal(true);
    expect(id[14]).to.equal('8');
    expect(reportEventId(DIGEST, ID.a, 'bounced')).to.equal(id);
    expect(reportEventId('b'.repeat(64), ID.a, 'bounced')).to.not.equal(id);
    expect(reportEventId(DIGEST, ID.b, 'bounced')).to.not.equal(id);
    expect(reportEventId(DIGEST, ID.a, 'complained')).to.not.equal(id);
  });

  it('matches every fixture about an email to it, through the envelope or the report alone', async () => {
    const expected: Array<[FixtureName, string, 'bounce' | 'complaint' | 'ignored']> = [
      ['postfixHard', 'hard', 'bounce'],
      ['eximHard', 'hard', 'bounce'],
      ['postfixSoft', 'soft', 'bounce'],
      ['sloppyTextPlain', 'hard', 'bounce'],
      ['gmailStyleComplaint', '', 'complaint'],
      ['microsoftComplaint', '', 'complaint'],
      ['postfixDelayed', '', 'ignored'],
    ];
    for (const [name, kind, outcome] of expected) {
      const f = FIXTURES[name];
      const lookup = lookupOf([email(f.emailId, f.recipient)]);
      const report = await parseReport(readFixture(name));
      // With the VERP envelope, and without it (a report forwarded from elsewhere).
      for (const rcpts of [[verp(f.emailId)], ['fbl@feedback.lattice-mail.test']]) {
        const decision = await decideReport(input(report, lookup, rcpts));
        expect(decision.outcome, `${name} ${rcpts}`).to.equal(outcome);
        if (outcome === 'ignored') continue;
        expect(decision.events[0]!.email_id, name).to.equal(f.emailId);
        expect(decision.events[0]!.recipient, name).to.equal(f.recipient);
        expect(decision.events[0]!.bounce_kind, name).to.equal(kind === '' ? null : kind);
      }
    }
  });
});
