// Realtime area: the realtime toolkit's own API keys (`rtk_`). Any member token may manage
// them, and so may a realtime key (the realtime area is its own).
import type { RouteDef } from '@lattice/http';
import { issueRealtimeKey, type RealtimeKeyRepository } from '@lattice/keys';
import { notFound } from '../errors.ts';
import { listAnswer, pageRequest, realtimeKeyView } from './key-views.ts';
import { principalOf } from './principal.ts';

const common = { area: 'realtime', auth: 'management' } as const;

export function realtimeKeyRoutes(deps: { realtimeKeys: RealtimeKeyRepository }): RouteDef[] {
  return [
    {
      ...common,
      method: 'POST',
      path: '/realtime/api-keys',
      operationId: 'realtime_apikey_create',
      audit: { targetType: 'realtime_api_key' },
      summary: 'Create a realtime API key',
      description:
        'Mints an `rtk_` key for the realtime toolkit’s own API; the name is optional. The answer ' +
        'carries the full key in `key`, once; it is stored only as a hash.',
      request: { body: 'realtime-api-key-create' },
      responses: { 201: 'realtime-api-key-created' },
      async handler(ctx) {
        const principal = principalOf(ctx);
        const { name } = ctx.body as { name?: string };
        const { key, record } = await issueRealtimeKey(deps.realtimeKeys, {
          productId: principal.productId,
          name: name ?? null,
          createdBy: principal.memberId,
        });
        return { status: 201, body: { ...realtimeKeyView(record), key } };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/realtime/api-keys',
      operationId: 'realtime_apikey_list',
      summary: 'List the realtime API keys',
      description: 'Keys not deleted, newest first, with their first eight characters; never the key.',
      request: { query: 'key-list-query' },
      responses: { 200: 'realtime-api-key-list' },
      async handler(ctx) {
        const page = pageRequest(ctx.query);
        const rows = await deps.realtimeKeys.list(principalOf(ctx).productId, page);
        return { status: 200, body: listAnswer(rows, page, realtimeKeyView) };
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/realtime/api-keys/:id',
      operationId: 'realtime_apikey_delete',
      audit: { targetType: 'realtime_api_key' },
      summary: 'Delete a realtime API key',
      description:
        'The key stops working on the realtime toolkit’s API at once. A public key imported from ' +
        'it is a separate record and stays active; revoke that one in the public key list.',
      request: { params: 'key-id-params' },
      responses: { 204: { description: 'Deleted' } },
      errors: [notFound('realtime API key')],
      async handler(ctx) {
        const deleted = await deps.realtimeKeys.delete(principalOf(ctx).productId, ctx.params.id as string);
        if (!deleted) throw notFound('realtime API key');
        return { status: 204 };
      },
    },
  ];
}
