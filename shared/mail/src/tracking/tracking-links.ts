// The links the mail sender writes into a message: the open pixel, click redirects and the RFC 8058
// one-click unsubscribe URL, each a keyless route of the public edge carrying a signed token.
// They point at the public edge of the environment that accepted the send (decisions.md "Mail":
// PUBLIC_URL or PUBLIC_DEV_URL), under the email's product:
//   {public url}/{product}/mail/t/open/{token}
//   {public url}/{product}/mail/t/click/{token}
//   {public url}/{product}/mail/unsubscribe/{token}
import type { Environment, SecretKeyring } from '@lattice/core';
import { rewriteHtml } from './html-rewrite.ts';
import { isHttpUrl, signTrackingToken, type TrackingKind } from './tracking-token.ts';

/** The email a link is about. */
/** Links of one message rewritten for click tracking; the rest are sent as written. */
export const MAX_TRACKED_LINKS = 1000;

export interface TrackedEmail {
  /** The environment whose edge accepted the send. */
  environment: Environment;
  productId: string;
  emailId: string;
  /** The recipient's bare lower-cased address (mail_emails.to_address). */
  recipient: string;
}

export interface TrackingLinks {
  openPixelUrl(email: TrackedEmail): string;
  /**
   * The click-tracking URL of `url`; null when `url` is not an absolute http(s) URL or is too
   * long to carry in a token (such a link is sent untracked).
   */
  clickUrl(email: TrackedEmail, url: string): string | null;
  /** The one-click unsubscribe URL, for `List-Unsubscribe` on every message. */
  unsubscribeUrl(email: TrackedEmail): string;
  /** The html with the switches the email was accepted with: clicks rewrites links, opens adds the pixel. */
  trackedHtml(email: TrackedEmail, html: string, track: { opens: boolean; clicks: boolean }): string;
}

export interface TrackingLinksDeps {
  keyring: SecretKeyring;
  /** config.publicUrls: each environment's public edge origin. */
  publicUrls: Readonly<Record<Environment, string>>;
}

const ROUTE: Record<TrackingKind, string> = { open: 't/open', click: 't/click', unsubscribe: 'unsubscribe' };

export function createTrackingLinks(deps: TrackingLinksDeps): TrackingLinks {
  const { keyring } = deps;
  const bases = {} as Record<Environment, string>;
  for (const [environment, url] of Object.entries(deps.publicUrls) as Array<[Environment, string]>)
    bases[environment] = url.replace(/\/+$/, '');

  function link(kind: TrackingKind, email: TrackedEmail, url?: string): string | null {
    const token = signTrackingToken(keyring, {
      kind,
      productId: email.productId,
      emailId: email.emailId,
      recipient: email.recipient,
      ...(url === undefined ? {} : { url }),
    });
    if (token === null) return null;
    return `${bases[email.environment]}/${encodeURIComponent(email.productId)}/mail/${ROUTE[kind]}/${token}`;
  }

  // Open and unsubscribe tokens hold two ids and an address (at most 254 characters once
  // parsed at accept): they always fit, and one that does not is a caller's bug.
  function fixed(kind: TrackingKind, email: TrackedEmail): string {
    const url = link(kind, email);
    if (url === null) throw new Error(`the ${kind} token of email ${email.emailId} does not fit in a link`);
    return url;
  }

  const links: TrackingLinks = {
    openPixelUrl: (email) => fixed('open', email),
    clickUrl: (email, url) => (isHttpUrl(url) ? link('click', email, url) : null),
    unsubscribeUrl: (email) => fixed('unsubscribe', email),
    trackedHtml(email, html, track) {
      // Each tracked link grows the message by a signed token: past MAX_TRACKED_LINKS the rest
      // stay as written, so a body of tiny links cannot swell into a message the smart host
      // refuses as too large (a 552, which would read as a hard bounce of the recipient).
      let tracked = 0;
      const clickUrl = (url: string) => {
        if (tracked >= MAX_TRACKED_LINKS) return null;
        const rewritten = links.clickUrl(email, url);
        if (rewritten !== null) tracked++;
        return rewritten;
      };
      return rewriteHtml(html, {
        ...(track.opens ? { openPixelUrl: links.openPixelUrl(email) } : {}),
        ...(track.clicks ? { clickUrl } : {}),
      });
    },
  };
  return links;
}
