// An email row to the message nodemailer composes and signs: Message-ID (the same on every
// attempt, so receivers deduplicate a repeated handover), the VERP envelope sender on the
// domain's return-path subdomain, RFC 8058 one-click unsubscribe headers, the DKIM signature
// of the domain's key, and tracking rewrites when the domain had them on at accept.
//
// No header line is longer than RFC 5322's 998 octets: nodemailer folds a header only at
// whitespace and encodes only non-ASCII text, so a subject or a custom header value with a long
// unbroken run of ASCII (`foldable`) goes out as RFC 2047 encoded words, which fold; receivers
// decode them to the original text. Display names need no such care: nodemailer encodes (and
// so folds) non-ASCII ones, and an ASCII one is at most DISPLAY_NAME_MAX characters
// (send-request.ts), which fits on one line with its address, quoted and escaped.
//
// The domain's signing key is read (and its PEM parsed into a key object) once per
// KEY_CACHE_MS per domain, not once per email: a statement and a PEM parse per email were a
// good share of the sender's cost (docs/mail.md "The mail sender"). A rotated key (a new selector) or a
// deleted domain is seen within that time.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { type Clock, type Logger, SecretKeyError, systemClock } from '@lattice/core';
import type Mail from 'nodemailer/lib/mailer';
import { encodeWord } from 'nodemailer/lib/mime-funcs';
import { parseMailbox } from '../addresses.ts';
import { verpAddress } from '../return-path.ts';
import type { EmailContent, SenderEmail } from './sender-store.ts';

/**
 * The email can never be composed as accepted: its domain was deleted, its DKIM key's seal does
 * not open with the keyring (LATTICE_SECRET_KEYS changed), or its row no longer parses. Retrying
 * cannot help; the sender ends it with an `undetermined` bounce instead of stalling its partition.
 */
export class UnsendableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnsendableError';
  }
}

/** A run of non-whitespace longer than this cannot be folded where it stands. */
const UNBROKEN_MAX = 76;
const UNBROKEN = new RegExp(`\\S{${UNBROKEN_MAX + 1},}`);
const NON_ASCII = /\P{ASCII}/u;

/**
 * `value` as a header text that folds within 998 octets: itself when every run of
 * non-whitespace is short enough to fold around, else RFC 2047 encoded words (quoted-printable,
 * words of at most 52 characters, each its own foldable unit). Text that holds `=?` is encoded
 * too: a receiver would otherwise decode what only looks like an encoded word, and read another
 * text than the one sent.
 */
export function foldable(value: string): string {
  if (!UNBROKEN.test(value) && !value.includes('=?')) return value;
  // Base64 for non-ASCII text: nodemailer splits its words on whole characters (its
  // quoted-printable split can cut a multi-byte character in two).
  return encodeWord(value, NON_ASCII.test(value) ? 'B' : 'Q', 52);
}

export interface DkimKey {
  domainName: string;
  keySelector: string;
  /** PKCS#8 PEM. */
  privateKey: string;
}

export interface SigningKeys {
  /** The key the domain signs with; undefined when the domain is gone. */
  signingKey(productId: string, domainId: string): Promise<DkimKey | undefined>;
}

/** The per-message links (tracking-links.ts), bound to the email. */
export interface EmailLinks {
  /** The RFC 8058 one-click URL: on every message. */
  unsubscribeUrl(email: SenderEmail): string;
  /** The html with tracked links and the open pixel, as the email's switches say. */
  trackedHtml(email: SenderEmail, html: string): string;
}

export interface MessageBuilderDeps {
  keys: SigningKeys;
  links: EmailLinks;
  logger: Logger;
  /** The key cache's time; default the system clock. */
  clock?: Clock;
}

/** How long a domain's signing key is used before it is read again. */
export const KEY_CACHE_MS = 5_000;
/** Domains whose keys are kept; past it the cache starts over. */
const KEY_CACHE_MAX = 10_000;

interface CachedKey {
  domainName: string;
  keySelector: string;
  privateKey: KeyObject;
  readAtMs: number;
}

export type MessageBuilder = (
  email: SenderEmail,
  content: EmailContent,
  nowMs: number,
) => Promise<Mail.Options>;

export function createMessageBuilder(deps: MessageBuilderDeps): MessageBuilder {
  const log = deps.logger.child({ component: 'message-builder' });
  const clock = deps.clock ?? systemClock;
  const cached = new Map<string, CachedKey>();

  async function signingKeyOf(email: SenderEmail): Promise<CachedKey> {
    const cacheKey = `${email.productId}/${email.domainId}`;
    const nowMs = clock.nowMs();
    const hit = cached.get(cacheKey);
    if (hit && nowMs - hit.readAtMs < KEY_CACHE_MS) return hit;
    const key = await readSigningKey(email);
    const previous =
      hit && hit.keySelector === key.keySelector && hit.domainName === key.domainName ? hit : null;
    const entry: CachedKey = {
      domainName: key.domainName,
      keySelector: key.keySelector,
      // The same selector is the same key: its parsed object is kept.
      privateKey: previous ? previous.privateKey : createPrivateKey(key.privateKey),
      readAtMs: nowMs,
    };
    if (cached.size >= KEY_CACHE_MAX) cached.clear();
    cached.set(cacheKey, entry);
    return entry;
  }

  async function readSigningKey(email: SenderEmail): Promise<DkimKey> {
    let key: DkimKey | undefined;
    try {
      key = email.domainId === null ? undefined : await deps.keys.signingKey(email.productId, email.domainId);
    } catch (err) {
      if (!(err instanceof SecretKeyError)) throw err;
      log.error({ emailId: email.id, err: err.message }, 'a DKIM key does not open with LATTICE_SECRET_KEYS');
      throw new UnsendableError('The sending domain’s signing key cannot be opened', { cause: err });
    }
    // Mail goes out signed by a domain of the product, or not at all.
    if (!key) throw new UnsendableError('The sending domain was deleted before the email was sent');
    return key;
  }

  return async (email, content, nowMs) => {
    const from = parseMailbox(email.fromHeader);
    const to = parseMailbox(email.toHeader);
    const replyTo = email.replyTo ? parseMailbox(email.replyTo) : null;
    if (!from || !to || (email.replyTo && !replyTo))
      throw new UnsendableError('The sender or a recipient no longer parses');
    const key = await signingKeyOf(email);
    const html =
      content.html === null
        ? undefined
        : email.trackOpens || email.trackClicks
          ? deps.links.trackedHtml(email, content.html)
          : content.html;
    return {
      from: { name: from.name, address: from.address },
      to: { name: to.name, address: to.address },
      ...(replyTo ? { replyTo: { name: replyTo.name, address: replyTo.address } } : {}),
      subject: foldable(email.subject),
      ...(html === undefined ? {} : { html }),
      ...(content.text === null ? {} : { text: content.text }),
      messageId: email.messageId,
      date: new Date(nowMs),
      envelope: { from: verpAddress(email.id, from.domain), to: [to.address] },
      headers: {
        ...Object.fromEntries(Object.entries(email.headers).map(([name, value]) => [name, foldable(value)])),
        'List-Unsubscribe': `<${deps.links.unsubscribeUrl(email)}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
      dkim: { domainName: key.domainName, keySelector: key.keySelector, privateKey: key.privateKey },
      // The content is ours: no file or URL attachments are ever read on its behalf.
      disableFileAccess: true,
      disableUrlAccess: true,
    };
  };
}
