// The keyless public routes of the mail toolkit (decisions.md "Public edge routes" and "Mail"),
// bound by operationId; the edge has applied the per-IP limit, matched the route and validated
// the token's shape (and read the one-click form body) before one runs. Each is gated by the
// signed token in its own URL: one that does not verify for this route and this product answers
// 404 `not_found` and records nothing.
//   GET  /t/open/{token}        200 1x1 GIF; publishes `opened`
//   GET  /t/click/{token}       302 to the token's URL; publishes `clicked` with `link`
//   GET  /unsubscribe/{token}   200 confirmation page; changes nothing
//   POST /unsubscribe/{token}   200 page; suppresses the recipient (reason unsubscribe), RFC 8058
// Opens and clicks are published on every valid request: "once per message" (spec "Mail webhook
// events" rule 2) is the email-state actor's unique index on mail_email_events. A recipient's
// mail client must never see an error for our trouble: when publishing fails the pixel and the
// redirect are answered all the same and the loss is counted
// (lattice_mail_tracking_events_lost_total). HEAD requests (link scanners probing) get the same
// answer and record nothing.
import { type Clock, errorMessage, type Logger, nameBasedUuid, type SecretKeyring } from '@lattice/core';
import { type PublicHandler, type PublicHandlers, requestIdOf } from '@lattice/http';
import { derivedEventId } from '../emails/outbound-record.ts';
import type { MailEventPublisher, MailEventRecord } from '../events/mail-event.ts';
import { MAIL_ERRORS } from '../mail-errors.ts';
import type { SuppressionStore } from '../suppression/suppression-store.ts';
import type { TrackingMetrics, TrackingRoute } from './tracking-metrics.ts';
import { type TrackingClaims, type TrackingKind, verifyTrackingToken } from './tracking-token.ts';
import { confirmationPage, PAGE_HEADERS, unsubscribedPage } from './unsubscribe-pages.ts';

export interface TrackingHandlersDeps {
  keyring: SecretKeyring;
  /** Where opens and clicks go (mail.events). */
  events: MailEventPublisher;
  suppressions: SuppressionStore;
  clock: Clock;
  logger: Logger;
  metrics: TrackingMetrics;
}

/** A transparent 1x1 GIF (43 bytes). */
const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const NO_STORE = { 'Cache-Control': 'no-store, private' };
const HTML = 'text/html; charset=utf-8';
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * The Location of a click: the URL exactly as the link had it when it is a valid header value;
 * otherwise (non-ASCII, spaces) its WHATWG serialisation, which is what a browser would have
 * requested for the original link anyway.
 */
function locationOf(url: string): string {
  return HEADER_SAFE.test(url) ? url : URL.parse(url)!.href;
}

export function createTrackingHandlers(deps: TrackingHandlersDeps): PublicHandlers {
  const { keyring, events, suppressions, clock, metrics } = deps;
  const log = deps.logger.child({ component: 'mail-tracking' });

  function claimsFor(
    kind: TrackingKind,
    route: TrackingRoute,
    ctx: Pick<Parameters<PublicHandler>[0], 'productId' | 'params'>,
  ): TrackingClaims {
    const claims = verifyTrackingToken(keyring, String(ctx.params.token), { kind, productId: ctx.productId });
    metrics.request(route, claims ? 'ok' : 'invalid_token');
    if (!claims) throw MAIL_ERRORS.linkNotFound();
    return claims;
  }

  /** Publishes an open or click; a failure is counted and logged (ids only), never answered. */
  async function record(
    claims: TrackingClaims,
    type: 'opened' | 'clicked',
    link: string | null,
    requestId: string | undefined,
  ) {
    const event: MailEventRecord = {
      // One id per email (opens) or per email and link (clicks): the first is the event, a repeat
      // is the same event again, which the email state and the webhook fan-out drop by its id.
      event_id:
        type === 'opened'
          ? derivedEventId(claims.emailId, 'opened')
          : nameBasedUuid('clicked', claims.emailId, link ?? ''),
      product_id: claims.productId,
      email_id: claims.emailId,
      type,
      recipient: claims.recipient,
      bounce_kind: null,
      reason: null,
      // The smart host's id is the sender's to know; the link carries none, and reading the
      // email to find it would put a database read on every open.
      provider_message_id: null,
      link,
      occurred_at_ms: clock.nowMs(),
    };
    try {
      await events.publish(event, requestId);
    } catch (err) {
      metrics.eventLost(type);
      log.warn({ err: errorMessage(err), emailId: claims.emailId, type }, 'tracking event lost');
    }
  }

  return {
    async public_mail_open_track(ctx) {
      const claims = claimsFor('open', 'open', ctx);
      if (ctx.req.method !== 'HEAD') await record(claims, 'opened', null, requestIdOf(ctx.res));
      return { status: 200, body: PIXEL_GIF, contentType: 'image/gif', headers: NO_STORE };
    },

    async public_mail_click_track(ctx) {
      const claims = claimsFor('click', 'click', ctx);
      // verifyTrackingToken admits a click only with an absolute http(s) URL: no open redirect.
      const url = claims.url!;
      if (ctx.req.method !== 'HEAD') await record(claims, 'clicked', url, requestIdOf(ctx.res));
      return { status: 302, headers: { ...NO_STORE, Location: locationOf(url) } };
    },

    public_mail_unsubscribe_page(ctx) {
      const claims = claimsFor('unsubscribe', 'unsubscribe_page', ctx);
      return {
        status: 200,
        body: confirmationPage(claims.recipient),
        contentType: HTML,
        headers: PAGE_HEADERS,
      };
    },

    async public_mail_unsubscribe(ctx) {
      const claims = claimsFor('unsubscribe', 'unsubscribe', ctx);
      try {
        // Idempotent: an address already listed (by this link or anything else) stays as it is.
        await suppressions.add(claims.productId, {
          address: claims.recipient,
          reason: 'unsubscribe',
          emailId: claims.emailId,
        });
      } catch (err) {
        log.warn({ err: errorMessage(err), emailId: claims.emailId }, 'unsubscribe not recorded');
        throw MAIL_ERRORS.unsubscribeUnavailable();
      }
      return {
        status: 200,
        body: unsubscribedPage(claims.recipient),
        contentType: HTML,
        headers: PAGE_HEADERS,
      };
    },
  };
}
