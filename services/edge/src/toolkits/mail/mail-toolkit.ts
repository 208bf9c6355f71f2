// The mail toolkit's public handlers (decisions.md "Public edge routes"), bound to the routes of
// PUBLIC_ROUTES by operationId. By the time one runs, the edge has applied the per-IP limit,
// matched the route, checked the public key (keyed routes) and stripped it, read the body within
// the route's cap (1 MiB for a send) and validated it against the route's schemas, the
// management API's compiled validators. Every handler runs the same services as
// mail_email_send / mail_email_get, so both surfaces answer alike. A public key is never
// domain-locked (spec "Authentication" rule 10): a send may use any verified domain.
//   POST /emails                     202 {id}; per-product send rate; Idempotency-Key
//   GET  /emails/{id}                200 the email and its newest event
//   GET  /t/open/{token}, /t/click/{token}, GET and POST /unsubscribe/{token}: keyless, tracking.ts
import { type PublicHandlers, requestIdOf } from '@lattice/http';
import type { MailHttp, SendEmailBody } from '@lattice/mail';
import { headerOf, withEdgeRateLimits, withEdgeRateLimitsOnRefusal } from '../edge-rate-limits.ts';

export interface MailToolkitDeps {
  /** The shared mail services (startMailHttpRuntime(...)). */
  mail: MailHttp;
}

export function mailToolkit(deps: MailToolkitDeps): PublicHandlers {
  const { mail } = deps;
  return {
    async public_mail_email_send({ environment, productId, body, req, res }) {
      try {
        const answer = await mail.emails.send({
          productId,
          environment,
          body: body as SendEmailBody,
          idempotencyKey: headerOf(req, 'idempotency-key'),
          requestId: requestIdOf(res),
        });
        return {
          status: answer.status,
          body: answer.body,
          headers: {
            ...withEdgeRateLimits(res, answer.headers),
            ...(answer.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
          },
        };
      } catch (err) {
        throw withEdgeRateLimitsOnRefusal(res, err);
      }
    },

    async public_mail_email_get({ productId, params }) {
      return { status: 200, body: await mail.emails.get(productId, params.id as string) };
    },

    ...mail.trackingHandlers,
  };
}
