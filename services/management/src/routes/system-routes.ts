// Operational endpoints: liveness with a database check, Prometheus metrics, the OpenAPI document
// and the reference pages made from it. No authentication; not part of the catalog (no OpenAPI
// operation, no agent tool).
import { ApiError, type SecretHealth } from '@lattice/core';
import type { OpenApiDocument, RouteDef } from '@lattice/http';
import type { Db } from '@lattice/store';
import type { Registry } from 'prom-client';
import { renderReference } from '../reference/reference-page.ts';

const DB_CHECK_TIMEOUT_MS = 2000;
const HEALTH_CHECK_FAILED = new ApiError(
  503,
  'database_unavailable',
  'health_check',
  'The database is not reachable',
);

const secretsFailing = (purposes: readonly string[]) =>
  new ApiError(
    503,
    'secrets_unavailable',
    'health_check',
    `Sealed values of ${purposes.join(', ')} do not open with LATTICE_SECRET_KEYS (docs/operations.md "Secrets at start")`,
  );

export function systemRoutes(deps: {
  db: Db;
  registry: Registry;
  openApi: OpenApiDocument;
  /** Whether the process's keyring opens the sealed values it needs; absent: not checked here. */
  secretHealth?: SecretHealth;
}): RouteDef[] {
  const common = { area: 'system', auth: 'none', operational: true } as const;
  // Rendered once: the document is fixed for the life of the process.
  const reference = renderReference(deps.openApi);
  return [
    {
      ...common,
      method: 'GET',
      path: '/healthz',
      operationId: 'system_healthz',
      summary: 'Liveness and database reachability',
      description:
        '200 while the process runs and PostgreSQL answers within 2 s; 503 `database_unavailable` ' +
        'otherwise, and 503 `secrets_unavailable` naming the purposes whose sealed values do not open.',
      responses: { 200: 'health', 503: 'error-body' },
      errors: [HEALTH_CHECK_FAILED, secretsFailing(['realtime-signing-key'])],
      async handler() {
        try {
          await deps.db.raw('select 1').timeout(DB_CHECK_TIMEOUT_MS, { cancel: true });
        } catch {
          throw HEALTH_CHECK_FAILED;
        }
        const failing = deps.secretHealth?.failing() ?? [];
        if (failing.length > 0) throw secretsFailing(failing);
        return { status: 200, body: { status: 'ok' } };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/metrics',
      operationId: 'system_metrics',
      summary: 'Prometheus metrics',
      description:
        'The role’s metrics in the Prometheus text format (no credential: scrape it from the private network).',
      responses: { 200: { contentType: 'text/plain', description: 'Prometheus text exposition format' } },
      async handler() {
        return { status: 200, body: await deps.registry.metrics(), contentType: deps.registry.contentType };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/openapi.json',
      operationId: 'system_openapi',
      summary: 'The OpenAPI 3.1 document of the management API',
      description: 'Every catalog operation, stamped with `x-lattice.catalog_version`; no credential needed.',
      responses: { 200: { contentType: 'application/json' } },
      handler: () => ({ status: 200, body: deps.openApi }),
    },
    {
      ...common,
      method: 'GET',
      path: '/reference',
      operationId: 'system_reference',
      summary: 'The human reference, generated from the OpenAPI document',
      description:
        'HTML pages of every operation, rendered from the served document and stamped with its catalog version.',
      responses: { 200: { contentType: 'text/html', description: 'The reference page' } },
      handler: () => ({ status: 200, body: reference, contentType: 'text/html; charset=utf-8' }),
    },
  ];
}
