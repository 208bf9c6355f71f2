// Mail area: the mail toolkit's own API keys (`lmk_`). Any member token may manage them, and so
// may a full_access mail key (the mail area is its own); a sending_access key may not.
import type { RouteDef } from '@lattice/http';
import { issueMailKey, type MailKeyRepository, type MailKeyScope } from '@lattice/keys';
import { notFound, validationError } from '../errors.ts';
import { listAnswer, mailKeyView, pageRequest } from './key-views.ts';
import { principalOf } from './principal.ts';

const common = { area: 'mail', auth: 'management' } as const;

export function mailKeyRoutes(deps: { mailKeys: MailKeyRepository }): RouteDef[] {
  return [
    {
      ...common,
      method: 'POST',
      path: '/mail/api-keys',
      operationId: 'mail_apikey_create',
      audit: { targetType: 'mail_api_key' },
      summary: 'Create a mail API key',
      description:
        'Mints an `lmk_` key for the mail toolkit’s own API. `sending_access` keys may only send ' +
        'and read emails; `domain_id` locks sending to one mail domain of the product. The answer ' +
        'carries the full key in `key`, once; it is stored only as a hash.',
      request: { body: 'mail-api-key-create' },
      responses: { 201: 'mail-api-key-created' },
      async handler(ctx) {
        const principal = principalOf(ctx);
        const body = ctx.body as { name: string; scope: MailKeyScope; domain_id?: string | null };
        const issued = await issueMailKey(deps.mailKeys, {
          productId: principal.productId,
          name: body.name,
          scope: body.scope,
          domainId: body.domain_id ?? null,
          createdBy: principal.memberId,
        });
        if (!issued) {
          throw validationError([
            { path: 'body.domain_id', message: 'is not a mail domain of this product' },
          ]);
        }
        return { status: 201, body: { ...mailKeyView(issued.record), key: issued.key } };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/mail/api-keys',
      operationId: 'mail_apikey_list',
      summary: 'List the mail API keys',
      description: 'Keys not deleted, newest first, with their first eight characters; never the key.',
      request: { query: 'key-list-query' },
      responses: { 200: 'mail-api-key-list' },
      async handler(ctx) {
        const page = pageRequest(ctx.query);
        const rows = await deps.mailKeys.list(principalOf(ctx).productId, page);
        return { status: 200, body: listAnswer(rows, page, mailKeyView) };
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/mail/api-keys/:id',
      operationId: 'mail_apikey_delete',
      audit: { targetType: 'mail_api_key' },
      summary: 'Delete a mail API key',
      description:
        'The key stops working on the mail toolkit’s API at once. A public key imported from it ' +
        'is a separate record and stays active; revoke that one in the public key list.',
      request: { params: 'key-id-params' },
      responses: { 204: { description: 'Deleted' } },
      errors: [notFound('mail API key')],
      async handler(ctx) {
        const deleted = await deps.mailKeys.delete(principalOf(ctx).productId, ctx.params.id as string);
        if (!deleted) throw notFound('mail API key');
        return { status: 204 };
      },
    },
  ];
}
