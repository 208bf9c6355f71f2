// Mail area: the product's suppression list (decisions.md "Mail (interfaces)"). Member tokens and
// full_access mail keys reach it; a sending_access key does not (401 restricted_api_key). Entries
// come from hard bounces, complaints and one-click unsubscribes (the email-state actor and the
// unsubscribe route) or from `mail_suppression_create` (reason `manual`). A change applies to
// every send accepted after its answer.
import type { RouteDef } from '@lattice/http';
import { MAIL_ERRORS, parseMailbox, type Suppression, type SuppressionStore } from '@lattice/mail';
import { validationError } from '../errors.ts';
import { principalOf } from './principal.ts';

const common = { area: 'mail', auth: 'management' } as const;

export function suppressionView(s: Suppression) {
  return { address: s.address, reason: s.reason, created_at: s.createdAt.toISOString(), email_id: s.emailId };
}

/** The lower-cased address when `value` is exactly one bare address (no display name, no `<>`). */
function bareAddress(value: string): string | null {
  const mailbox = parseMailbox(value);
  return mailbox !== null && mailbox.name === '' && mailbox.address === value ? mailbox.normalized : null;
}

export function mailSuppressionRoutes(deps: { suppressions: SuppressionStore }): RouteDef[] {
  const { suppressions } = deps;
  return [
    {
      ...common,
      method: 'GET',
      path: '/mail/suppressions',
      operationId: 'mail_suppression_list',
      summary: 'List suppressed addresses',
      description:
        'Addresses the product’s emails are not sent to, newest first, with what listed them. ' +
        '`next_cursor` is the last address of the page; a cursor removed from the list since ' +
        'answers 400 (start again from the first page).',
      request: { query: 'mail-suppression-list-query' },
      responses: { 200: 'mail-suppression-list' },
      async handler(ctx) {
        const { productId } = principalOf(ctx);
        const limit = ctx.query.limit as number;
        const cursor = ctx.query.cursor as string | undefined;
        const rows = await suppressions.list(productId, {
          limit: limit + 1,
          ...(cursor === undefined ? {} : { afterAddress: cursor }),
        });
        // Entries follow the cursor's own position: without it there is nowhere to resume, and an
        // empty page would look like the end of the list.
        if (
          rows.length === 0 &&
          cursor !== undefined &&
          !(await suppressions.isSuppressed(productId, cursor))
        ) {
          throw validationError([
            {
              path: 'query.cursor',
              message: 'is no longer on the suppression list; start from the first page',
            },
          ]);
        }
        const shown = rows.slice(0, limit);
        return {
          status: 200,
          body: {
            data: shown.map(suppressionView),
            next_cursor: rows.length > limit ? shown[shown.length - 1]!.address : null,
          },
        };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/mail/suppressions',
      operationId: 'mail_suppression_create',
      audit: {
        targetType: 'suppression',
        // 200: the address was listed already and nothing changed.
        targets: (_ctx, result) =>
          result.status === 201
            ? [{ id: (result.body as { address: string }).address, changes: ['address', 'reason'] }]
            : [],
      },
      summary: 'Suppress an address',
      description:
        'Adds a bare address (no display name) to the suppression list with reason `manual`: ' +
        'sends to it then answer 202 and emit `email.suppressed`. 201 with the new entry; 200 with ' +
        'the entry unchanged when the address is listed already, whatever listed it.',
      request: { body: 'mail-suppression-create' },
      responses: { 200: 'mail-suppression', 201: 'mail-suppression' },
      async handler(ctx) {
        const { productId } = principalOf(ctx);
        const address = bareAddress((ctx.body as { address: string }).address);
        if (address === null) {
          throw validationError([
            { path: 'body.address', message: 'must be one bare email address, such as ann@example.org' },
          ]);
        }
        const { entry, created } = await suppressions.add(productId, {
          address,
          reason: 'manual',
          emailId: null,
        });
        return { status: created ? 201 : 200, body: suppressionView(entry) };
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/mail/suppressions/:address',
      operationId: 'mail_suppression_delete',
      audit: { targetType: 'suppression' },
      summary: 'Remove an address from the suppression list',
      description:
        'The address (URL-encoded in the path, compared lower-cased) may be sent to again from ' +
        'the next send accepted. 404 `not_found` when it is not listed.',
      request: { params: 'mail-suppression-params' },
      responses: { 204: { description: 'Removed' } },
      errors: [MAIL_ERRORS.suppressionNotFound()],
      async handler(ctx) {
        const removed = await suppressions.remove(principalOf(ctx).productId, ctx.params.address as string);
        if (!removed) throw MAIL_ERRORS.suppressionNotFound();
        return { status: 204 };
      },
    },
  ];
}
