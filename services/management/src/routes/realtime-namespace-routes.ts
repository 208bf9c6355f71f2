// Realtime area: namespaces and their policies (decisions.md "Management paths"). Any member
// token of the product and the product's realtime keys (`rtk_`) may use them. Channel actors,
// history and presence reads see a policy change within their cache window (about 5 s); token
// issuing sees it at once.

import { ApiError } from '@lattice/core';
import type { RouteDef } from '@lattice/http';
import type { NamespacePolicy, NamespaceRecord, NamespaceRepository } from '@lattice/realtime';
import { MANAGEMENT_STEP } from '../errors.ts';
import { principalOf } from './principal.ts';

const common = { area: 'realtime', auth: 'management' } as const;

const namespaceNotFound = () =>
  new ApiError(404, 'not_found', MANAGEMENT_STEP.lookup, 'No namespace by this name is registered');

export function namespaceView(n: NamespaceRecord) {
  return {
    name: n.name,
    presence: n.presence,
    client_events: n.clientEvents,
    history_window_seconds: n.historyWindowSeconds,
    archive_days: n.archiveDays,
    created_at: n.createdAt.toISOString(),
    updated_at: n.updatedAt.toISOString(),
  };
}

/** The body as validated (schema defaults applied): the whole policy. */
function policyOf(body: unknown): NamespacePolicy {
  const b = body as {
    presence: boolean;
    client_events: boolean;
    history_window_seconds: number;
    archive_days: number;
  };
  return {
    presence: b.presence,
    clientEvents: b.client_events,
    historyWindowSeconds: b.history_window_seconds,
    archiveDays: b.archive_days,
  };
}

export function realtimeNamespaceRoutes(deps: { namespaces: NamespaceRepository }): RouteDef[] {
  const { namespaces } = deps;
  return [
    {
      ...common,
      method: 'PUT',
      path: '/realtime/namespaces/:name',
      operationId: 'realtime_namespace_put',
      audit: { targetType: 'realtime_namespace' },
      summary: 'Register a namespace or replace its policy',
      description:
        'Creates the namespace (201) or replaces its whole policy (200); omitted fields take their ' +
        'defaults (presence and client events off, history window 0 = retain nothing, archive 0). ' +
        'Channels `<name>:…` exist only in registered namespaces. Publishing and reads apply a ' +
        'change within about 5 seconds; token issuing at once.',
      request: { params: 'realtime-namespace-params', body: 'realtime-namespace-policy' },
      responses: { 200: 'realtime-namespace', 201: 'realtime-namespace' },
      async handler(ctx) {
        const { productId } = principalOf(ctx);
        const { namespace, created } = await namespaces.put(
          productId,
          ctx.params.name as string,
          policyOf(ctx.body),
        );
        return { status: created ? 201 : 200, body: namespaceView(namespace) };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/realtime/namespaces',
      operationId: 'realtime_namespace_list',
      summary: 'List the namespaces',
      description: 'Registered namespaces of the product with their policies, sorted by name.',
      request: { query: 'realtime-namespace-list-query' },
      responses: { 200: 'realtime-namespace-list' },
      async handler(ctx) {
        const limit = ctx.query.limit as number;
        const cursor = ctx.query.cursor as string | undefined;
        const rows = await namespaces.list(principalOf(ctx).productId, {
          limit: limit + 1,
          ...(cursor === undefined ? {} : { after: cursor }),
        });
        const shown = rows.slice(0, limit);
        return {
          status: 200,
          body: {
            data: shown.map(namespaceView),
            next_cursor: rows.length > limit ? shown[shown.length - 1]!.name : null,
          },
        };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/realtime/namespaces/:name',
      operationId: 'realtime_namespace_get',
      summary: 'Get a namespace',
      description: 'The namespace and its policy; 404 `not_found` when it is not registered.',
      request: { params: 'realtime-namespace-params' },
      responses: { 200: 'realtime-namespace' },
      errors: [namespaceNotFound()],
      async handler(ctx) {
        const record = await namespaces.get(principalOf(ctx).productId, ctx.params.name as string);
        if (!record) throw namespaceNotFound();
        return { status: 200, body: namespaceView(record) };
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/realtime/namespaces/:name',
      operationId: 'realtime_namespace_delete',
      audit: { targetType: 'realtime_namespace' },
      summary: 'Delete a namespace',
      description:
        'Unregisters the namespace: new tokens no longer grant its channels, publishes and reads ' +
        'answer 404 (within about 5 seconds). Stored history stays until the retention purge.',
      request: { params: 'realtime-namespace-params' },
      responses: { 204: { description: 'Deleted' } },
      errors: [namespaceNotFound()],
      async handler(ctx) {
        const deleted = await namespaces.delete(principalOf(ctx).productId, ctx.params.name as string);
        if (!deleted) throw namespaceNotFound();
        return { status: 204 };
      },
    },
  ];
}
