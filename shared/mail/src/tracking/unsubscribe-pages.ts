// The two pages a recipient sees when following an unsubscribe link in a browser: a confirmation
// with a button (GET never unsubscribes: mail scanners and link previews fetch links) and the
// answer to its POST. Self-contained (no external assets, nothing to load from elsewhere), the
// address partly masked (the page is reachable by anyone the link was forwarded to), every text
// escaped, and served with headers that keep the page from being framed, cached or leaking its
// URL (which holds the token) in a Referer.
import { escapeText } from './html-attribute.ts';

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store, private',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/** `ann.lee@example.org` → `a***@example.org`: enough to recognise, not to harvest. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***${address.slice(at)}`;
}

const STYLE =
  'body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:32rem;margin:4rem auto;' +
  'padding:0 1rem;color:#1f2328;line-height:1.5}button{font:inherit;padding:.5rem 1.25rem;' +
  'border:1px solid #1f2328;border-radius:6px;background:#1f2328;color:#fff;cursor:pointer}';

function page(title: string, body: string): string {
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${escapeText(title)}</title>` +
    `<style>${STYLE}</style></head><body>${body}</body></html>\n`
  );
}

/**
 * The confirmation page. Its form posts the RFC 8058 body to the page's own URL (a form without
 * an action submits to the document's address), as a mail provider's one-click POST would.
 */
export function confirmationPage(recipient: string): string {
  return page(
    'Unsubscribe',
    `<h1>Unsubscribe</h1><p>Stop sending emails from this sender to <strong>${escapeText(maskAddress(recipient))}</strong>?</p>` +
      '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">' +
      '<button type="submit">Unsubscribe</button></form>',
  );
}

export function unsubscribedPage(recipient: string): string {
  return page(
    'Unsubscribed',
    `<h1>You are unsubscribed</h1><p><strong>${escapeText(maskAddress(recipient))}</strong> will no longer receive emails from this sender.</p>`,
  );
}
