// Composition of the management API: repositories → route table → router, document and
// metrics. Everything comes in through `deps`; nothing here reads the environment or opens a
// connection (the management role does, in role.ts).
import type { Logger, MailConfig, SecretHealth, SecretKeyring } from '@lattice/core';
import {
  buildOpenApi,
  buildRouter,
  buildToolCatalog,
  CATALOG_VERSION_HEADER,
  catalogRoutes,
  errorMiddleware,
  loadSchemaRegistry,
  type OpenApiDocument,
  type RouteDef,
  requestLogMiddleware,
  type SchemaRegistry,
} from '@lattice/http';
import {
  createPostgresAreaKeyImporter,
  createPostgresMailKeyRepository,
  createPostgresPublicKeyRepository,
  createPostgresRealtimeKeyRepository,
} from '@lattice/keys';
import {
  createNodeDnsLookup,
  createPostgresDomainStore,
  createPostgresSuppressionStore,
  createPostgresWebhookEndpointStore,
  type MailHttp,
} from '@lattice/mail';
import { createPostgresNamespaceRepository, type RealtimeHttp } from '@lattice/realtime';
import {
  createPostgresAuditLog,
  createPostgresMemberRepository,
  createPostgresMemberTokenRepository,
  createPostgresProductRepository,
  createTransactionScope,
  type Db,
} from '@lattice/store';
import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import { withAudit } from './audit/audit-recorder.ts';
import { authorizeRoute, withAccessErrors } from './auth/access-policy.ts';
import { createMailKeyResolver, createRealtimeKeyResolver } from './auth/area-key-resolver.ts';
import { createBearerAuthenticator } from './auth/bearer-authenticator.ts';
import type { CredentialResolver } from './auth/credential-resolver.ts';
import { createMemberTokenResolver } from './auth/member-token-resolver.ts';
import { type DashboardScripts, dashboardScripts, readDashboardFiles } from './dashboard/dashboard-files.ts';
import { mcpRouter } from './mcp/mcp-endpoint.ts';
import { httpMetricsMiddleware } from './metrics.ts';
import type { KeyChangeNotifier } from './notify/key-change-notifier.ts';
import { MANAGEMENT_API_INFO, managementCatalog, managementRoutes } from './route-table.ts';
import type { WebhookTargetCheck } from './routes/mail-webhook-routes.ts';

export interface ManagementDeps {
  db: Db;
  logger: Logger;
  registry: Registry;
  /** Defaults to the files in schemas/http. */
  schemas?: SchemaRegistry;
  /** Where public key changes are announced to the edges (createRedisKeyChangeNotifier). */
  keyChanges: KeyChangeNotifier;
  /** Extra credential kinds; member tokens, mail keys and realtime keys are always accepted. */
  extraResolvers?: readonly CredentialResolver[];
  /** Check handler answers against their response schemas (tests). */
  validateResponses?: boolean;
  /** Host headers `/mcp` accepts besides the API's own address (MANAGEMENT_PUBLIC_HOSTS). */
  publicHosts?: readonly string[];
  /** The realtime area's services (startRealtimeHttpRuntime(...).http, which the caller closes). */
  realtime: RealtimeHttp;
  /** The platform's keyring (LATTICE_SECRET_KEYS): seals DKIM keys and webhook signing secrets. */
  secretKeys: SecretKeyring;
  /** Whether the keyring opens the sealed values the process needs; `/healthz` reports it. */
  secretHealth?: SecretHealth;
  /** The mail area's domain settings: DNS resolvers for verification, the records' targets. */
  mail: MailDomainSettings;
  /** The mail area's sending and reading services (startMailHttpRuntime(...).http, the caller's). */
  mailHttp: MailHttp;
  /** Checks webhook URLs at create and update (createTargetGuard, decisions.md's address rules). */
  webhookTargets: WebhookTargetCheck;
  /** The dashboard pages' scripts; default the esbuild bundles of dashboard/ (once per process). */
  dashboardScripts?: () => Promise<DashboardScripts>;
}

export type MailDomainSettings = Pick<MailConfig, 'dnsServers' | 'returnPathMx' | 'spfInclude'> & {
  /** Per DNS try during verification; default dns-lookup.node.ts's. */
  dnsTimeoutMs?: number;
};

export interface ManagementApp {
  app: Express;
  openApi: OpenApiDocument;
  /** Every route served, operational ones included. */
  routes: RouteDef[];
}

export function createManagementApp(deps: ManagementDeps): Express {
  return buildManagementApp(deps).app;
}

export function buildManagementApp(deps: ManagementDeps): ManagementApp {
  const schemas = deps.schemas ?? loadSchemaRegistry();
  const logger = deps.logger.child({ component: 'management' });
  // The catalog's repositories write in the transaction of the audited operation that calls them
  // (audit/audit-recorder.ts), and on the pool otherwise.
  const scope = createTransactionScope(deps.db);
  const db = scope.db;
  const auditLog = createPostgresAuditLog(db);
  const mailKeys = createPostgresMailKeyRepository(db);
  const realtimeKeys = createPostgresRealtimeKeyRepository(db);
  const catalog = managementCatalog({
    products: createPostgresProductRepository(db),
    members: createPostgresMemberRepository(db),
    memberTokens: createPostgresMemberTokenRepository(db),
    auditLog,
    publicKeys: createPostgresPublicKeyRepository(db),
    importer: createPostgresAreaKeyImporter(db),
    mailKeys,
    realtimeKeys,
    suppressions: createPostgresSuppressionStore(db),
    // Announced once the change has committed: an edge that reloads at once must find it.
    keyChanges: {
      keyChanged: (change) =>
        new Promise<void>((resolve) =>
          scope.afterCommit(() => void deps.keyChanges.keyChanged(change).then(resolve)),
        ),
    },
    realtime: deps.realtime,
    namespaces: createPostgresNamespaceRepository(db),
    domains: createPostgresDomainStore(db, { keyring: deps.secretKeys }),
    // Throws on a malformed DNS_SERVERS entry: the API does not start with resolvers it cannot use.
    dns: createNodeDnsLookup(
      {
        servers: deps.mail.dnsServers,
        ...(deps.mail.dnsTimeoutMs === undefined ? {} : { timeoutMs: deps.mail.dnsTimeoutMs }),
      },
      { logger },
    ),
    domainRecords: { returnPathMx: deps.mail.returnPathMx, spfInclude: deps.mail.spfInclude },
    mail: deps.mailHttp,
    webhooks: createPostgresWebhookEndpointStore(db, { keyring: deps.secretKeys }),
    webhookTargets: deps.webhookTargets,
    logger,
  })
    .map(withAccessErrors)
    .map((route) => withAudit(route, { scope, auditLog }));
  const openApi = buildOpenApi(catalog, MANAGEMENT_API_INFO, schemas);
  const catalogVersion = openApi['x-lattice'].catalog_version;

  const authenticate = createBearerAuthenticator({
    resolvers: [
      createMemberTokenResolver({ tokens: createPostgresMemberTokenRepository(deps.db), logger }),
      createMailKeyResolver({ keys: mailKeys }),
      createRealtimeKeyResolver({ keys: realtimeKeys }),
      ...(deps.extraResolvers ?? []),
    ],
  });

  const scripts = deps.dashboardScripts ?? dashboardScripts;
  // Bundled now, while the server starts, so the first page load does not wait for esbuild; a
  // failure is logged here and answered 503 (and retried) when a script is asked for.
  scripts().catch((err: unknown) =>
    logger.error({ err }, 'the dashboard scripts could not be bundled; retrying on their first request'),
  );
  const routes = managementRoutes({
    catalog,
    openApi,
    db: deps.db,
    registry: deps.registry,
    ...(deps.secretHealth ? { secretHealth: deps.secretHealth } : {}),
    dashboard: { ...readDashboardFiles(), scripts, logger },
  });
  const app = express();
  app.disable('x-powered-by');
  // Flat query strings only: nested `a[b]=` syntax would bypass the query schemas' shape.
  app.set('query parser', 'simple');
  // First, so every answer (refusals and the operational routes included) names its request id.
  app.use(requestLogMiddleware(logger));
  app.use(httpMetricsMiddleware(deps.registry));
  app.use((_req, res, next) => {
    res.set(CATALOG_VERSION_HEADER, catalogVersion);
    res.set('Cache-Control', 'no-store');
    res.set('X-Content-Type-Options', 'nosniff');
    next();
  });
  // Agent tools over MCP, each call dispatched to the router below (mcp/mcp-endpoint.ts).
  app.use(
    mcpRouter({
      tools: buildToolCatalog(routes, schemas),
      routes: catalogRoutes(routes),
      schemas,
      authenticate,
      version: catalogVersion,
      publicHosts: deps.publicHosts ?? [],
    }),
  );
  app.use(
    buildRouter(routes, {
      schemas,
      logger,
      authenticators: { management: authenticate },
      authorize: authorizeRoute,
      validateResponses: deps.validateResponses ?? false,
    }),
  );
  // What reaches here failed outside the router (the MCP endpoint's middleware): answered with
  // the JSON error body as well, never express's HTML page.
  app.use(errorMiddleware(logger, { logApiErrors: true }));
  return { app, openApi, routes };
}
