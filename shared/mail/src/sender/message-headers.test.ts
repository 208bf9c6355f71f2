// Header lines of composed messages (message-builder.ts "No header line is longer than RFC
// 5322's 998 octets"): a property test over random accepted subjects, display names and custom
// header values, composed and DKIM-signed by nodemailer exactly as the sender hands them over, then read
// back by mailparser. A seeded generator, so a failure names the case that reproduces it.
import { generateKeyPairSync } from 'node:crypto';
import { createLogger } from '@lattice/core';
import { expect } from 'chai';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { checkSendBody, DISPLAY_NAME_MAX } from '../emails/send-request.ts';
import { senderEmail } from '../testing/sender-email.ts';
import { createMessageBuilder, foldable } from './message-builder.ts';
import type { SenderEmail } from './sender-store.ts';

const MAX_LINE_OCTETS = 998;
const logger = createLogger({ name: 'message-headers-test', level: 'silent' });
const privateKey = generateKeyPairSync('rsa', {
  modulusLength: 1024,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

/** mulberry32: small, seeded, good enough to draw test cases. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'A',
  'z',
  '9',
  '-',
  '_',
  '.',
  '=',
  '?',
  '"',
  ':',
  ';',
  'é',
  'ß',
  '日本',
  '😀',
  '=?UTF-8?Q?x?=',
];

/** Text of up to `max` characters (code points): runs of one piece (up to 1 500 long) between single spaces. */
function text(next: () => number, max: number): string {
  let out = '';
  while (out.length < max) {
    const piece = PIECES[Math.floor(next() * PIECES.length)]!;
    const run = next() < 0.2 ? 1 + Math.floor(next() * 1500) : 1 + Math.floor(next() * 12);
    out += `${piece.repeat(run)} `;
    if (next() < 0.2) break;
  }
  // Cut on whole characters: a lone surrogate is no text a client can send.
  return Array.from(out).slice(0, max).join('').trim() || 'x';
}

const email = (over: Partial<SenderEmail>): SenderEmail =>
  senderEmail({ fromHeader: 'news@example.org', ...over });

const build = createMessageBuilder({
  keys: { signingKey: async () => ({ domainName: 'example.org', keySelector: 's1', privateKey }) },
  links: {
    unsubscribeUrl: () => `https://edge.example/u/${'t'.repeat(300)}`,
    trackedHtml: (_e, html) => html,
  },
  logger,
});

async function compose(e: SenderEmail): Promise<Buffer> {
  const options = await build(e, { html: '<p>x</p>', text: 'x' }, 1_780_000_000_000);
  return new MailComposer(options).compile().build();
}

function headerLines(raw: Buffer): string[] {
  const text = raw.toString('utf8');
  return text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
}

describe('message headers', () => {
  it('a 1 500-character subject without spaces is folded, encoded, and decodes to the original', async () => {
    const subject = 'S'.repeat(1500);
    const raw = await compose(email({ subject }));
    const lines = headerLines(raw);
    const at = lines.findIndex((l) => l.startsWith('Subject:'));
    const end = lines.findIndex((l, i) => i > at && !l.startsWith(' '));
    const subjectLines = lines.slice(at, end);
    expect(subjectLines.length).to.be.greaterThan(20);
    expect(subjectLines[0]).to.match(/^Subject: =\?UTF-8\?Q\?S+\?=$/);
    for (const line of subjectLines) expect(Buffer.byteLength(line)).to.be.at.most(78);
    expect((await simpleParser(raw)).subject).to.equal(subject);
  });

  it('leaves text that folds at its spaces as it is (both sides of the bound)', () => {
    expect(foldable(`${'a'.repeat(76)} ${'b'.repeat(76)}`)).to.equal(`${'a'.repeat(76)} ${'b'.repeat(76)}`);
    expect(foldable('a'.repeat(77))).to.match(/^=\?UTF-8\?Q\?a+\?= =\?UTF-8\?Q\?a+\?=$/);
    expect(foldable('looks =?UTF-8?Q?encoded?= but is not')).to.match(/^=\?UTF-8\?Q\?looks_=3D/);
  });

  it('property: for any accepted subject, names and custom headers, every header line is at most 998 octets and the subject reads back', async function () {
    this.timeout(60_000);
    for (let seed = 1; seed <= 120; seed++) {
      const next = random(seed);
      const subject = text(next, 2000);
      // Quotes go (the name is quoted here); runs of spaces they leave are one space, as
      // address parsers read a display name.
      const name =
        text(next, DISPLAY_NAME_MAX / 2)
          .replaceAll('"', '')
          .replace(/\s+/g, ' ')
          .trim() || 'x';
      const headers: Record<string, string> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--) headers[`X-Custom-${i}`] = text(next, 1800);
      // Only what the API accepts reaches the sender.
      const accepted = checkSendBody({
        from: `"${name}" <news@example.org>`,
        to: `"${name}" <bob@example.net>`,
        reply_to: `"${name}" <help@example.org>`,
        subject,
        html: '<p>x</p>',
        headers,
      });
      const raw = await compose(
        email({
          subject: accepted.subject,
          fromHeader: `"${name}" <news@example.org>`,
          toHeader: `"${name}" <bob@example.net>`,
          replyTo: `"${name}" <help@example.org>`,
          headers: accepted.headers,
        }),
      );
      const long = headerLines(raw).filter((l) => Buffer.byteLength(l) > MAX_LINE_OCTETS);
      expect(
        long.map((l) => l.slice(0, 60)),
        `seed ${seed}`,
      ).to.deep.equal([]);
      const parsed = await simpleParser(raw);
      expect(parsed.subject, `seed ${seed}`).to.equal(subject);
      // Display names are nodemailer's to encode; a name of emoji beside text that looks like an
      // encoded word can come back altered, so only its address is checked here.
      expect(parsed.from?.value[0]?.address, `seed ${seed}`).to.equal('news@example.org');
    }
  });
});
