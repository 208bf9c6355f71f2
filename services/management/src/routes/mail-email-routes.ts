// Mail area: sending and reading emails through the management API, mirroring the public edge's
// `POST /emails` and `GET /emails/{id}` (decisions.md "Mail (interfaces)"): the same body
// schema, the same services, the same answers. These two are all a `sending_access` mail key
// reaches; a domain-locked mail key sends only from its domain (an imported copy on the public
// edge is not locked). Tracking links of emails sent here point at the production edge.
import { MAIL_SEND_BODY_LIMIT_BYTES, type RouteDef, requestIdOf } from '@lattice/http';
import { MAIL_ERRORS, type MailHttp, type SendEmailBody } from '@lattice/mail';
import { SENDING_ACCESS } from '../auth/access-policy.ts';
import { principalOf } from './principal.ts';

const common = { area: 'mail', auth: 'management', access: SENDING_ACCESS } as const;

export function mailEmailRoutes(deps: { mail: MailHttp }): RouteDef[] {
  const { mail } = deps;
  return [
    {
      ...common,
      method: 'POST',
      path: '/mail/emails',
      operationId: 'mail_email_send',
      summary: 'Send an email',
      description:
        'Answers 202 `{id}` once the email is durably queued. `from` must be on a verified domain of ' +
        'the product, else 422 `domain_not_verified` (a domain-locked key: on its domain). One ' +
        'recipient in `to`. Body cap 1 048 576 bytes. 10 sends a second per product (shared with the ' +
        'public edge): beyond it 429 with `Retry-After`. Send an `Idempotency-Key` header to send once ' +
        'per key within 5 minutes: the same body answers the first id, another body 409 ' +
        '`idempotency_key_mismatch`, a first request still in progress 409 `idempotency_key_in_use`. ' +
        'A suppressed recipient still gets 202; the email is `suppressed` and nothing is sent.',
      request: { body: 'mail-email-send', headers: 'mail-email-send-headers' },
      bodyLimitBytes: MAIL_SEND_BODY_LIMIT_BYTES,
      responses: { 202: 'mail-email-accepted' },
      errors: [
        MAIL_ERRORS.idempotencyKeyMismatch(),
        MAIL_ERRORS.idempotencyKeyInUse(),
        MAIL_ERRORS.domainNotVerified('news.acme.example', false),
        MAIL_ERRORS.sendRateExceeded({ 'Retry-After': '1' }),
        MAIL_ERRORS.sendUnavailable(),
      ],
      async handler(ctx) {
        const principal = principalOf(ctx);
        const key = ctx.req.headers['idempotency-key'];
        const answer = await mail.emails.send({
          productId: principal.productId,
          environment: 'production',
          body: ctx.body as SendEmailBody,
          idempotencyKey: Array.isArray(key) ? key.join(', ') : key,
          domainLock: principal.domainLock ?? null,
          requestId: requestIdOf(ctx.res),
        });
        return {
          status: answer.status,
          body: answer.body,
          headers: { ...answer.headers, ...(answer.replayed ? { 'Idempotent-Replayed': 'true' } : {}) },
        };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/mail/emails/:id',
      operationId: 'mail_email_get',
      summary: 'Read an email',
      description:
        'The email and its newest event: `status` is `queued`, `delivered`, `bounced` (a hard bounce) ' +
        'or `suppressed`; soft bounces, complaints, opens and clicks show in `last_event`. Another ' +
        'product’s id answers 404, as an unknown one.',
      request: { params: 'mail-email-params' },
      responses: { 200: 'mail-email' },
      errors: [MAIL_ERRORS.emailNotFound(), MAIL_ERRORS.emailUnavailable()],
      async handler(ctx) {
        return {
          status: 200,
          body: await mail.emails.get(principalOf(ctx).productId, ctx.params.id as string),
        };
      },
    },
  ];
}
