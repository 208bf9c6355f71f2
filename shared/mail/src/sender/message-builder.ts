// An email row to the message nodemailer composes and signs: Message-ID (the same on every
// attempt, so receivers deduplicate a repeated handover), the VERP envelope sender on the
// domain's return-path subdomain, RFC 8058 one-click unsubscribe headers, the DKIM signature
// of the domain's key, and tracking rewrites when the domain had them on at accept.
import type { Logger } from '@lattice/core';
import type Mail from 'nodemailer/lib/mailer';
import { parseMailbox } from '../addresses.ts';
import { verpAddress } from '../return-path.ts';
import type { SenderEmail } from './sender-store.ts';

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
}

export type MessageBuilder = (email: SenderEmail, nowMs: number) => Promise<Mail.Options>;

export function createMessageBuilder(deps: MessageBuilderDeps): MessageBuilder {
  const log = deps.logger.child({ component: 'message-builder' });
  return async (email, nowMs) => {
    const from = parseMailbox(email.fromHeader);
    const to = parseMailbox(email.toHeader);
    // Both were parsed at accept; a row that no longer parses is a bug, not a bounce.
    if (!from || !to) throw new Error(`email ${email.id} has an unparseable from or to`);
    const key =
      email.domainId === null ? undefined : await deps.keys.signingKey(email.productId, email.domainId);
    if (!key) log.warn({ emailId: email.id }, 'the sending domain is gone: sending without a DKIM signature');
    const html =
      email.html === null
        ? undefined
        : email.trackOpens || email.trackClicks
          ? deps.links.trackedHtml(email, email.html)
          : email.html;
    return {
      from: { name: from.name, address: from.address },
      to: { name: to.name, address: to.address },
      ...(email.replyTo ? { replyTo: email.replyTo } : {}),
      subject: email.subject,
      ...(html === undefined ? {} : { html }),
      ...(email.text === null ? {} : { text: email.text }),
      messageId: email.messageId,
      date: new Date(nowMs),
      envelope: { from: verpAddress(email.id, from.domain), to: [to.address] },
      headers: {
        ...email.headers,
        'List-Unsubscribe': `<${deps.links.unsubscribeUrl(email)}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
      ...(key
        ? { dkim: { domainName: key.domainName, keySelector: key.keySelector, privateKey: key.privateKey } }
        : {}),
      // The content is ours: no file or URL attachments are ever read on its behalf.
      disableFileAccess: true,
      disableUrlAccess: true,
    };
  };
}
