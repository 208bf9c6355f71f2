// The sender's view of the tracking links (tracking-links.ts), bound to an email row: the
// one-click unsubscribe URL on every message, and the tracked html when the domain had opens or
// clicks on at accept.
import type { TrackingLinks } from '../tracking/tracking-links.ts';
import type { EmailLinks } from './message-builder.ts';
import type { SenderEmail } from './sender-store.ts';

function tracked(email: SenderEmail) {
  return {
    environment: email.environment,
    productId: email.productId,
    emailId: email.id,
    recipient: email.toAddress,
  };
}

export function emailLinksOf(links: TrackingLinks): EmailLinks {
  return {
    unsubscribeUrl: (email) => links.unsubscribeUrl(tracked(email)),
    trackedHtml: (email, html) =>
      links.trackedHtml(tracked(email), html, { opens: email.trackOpens, clicks: email.trackClicks }),
  };
}
