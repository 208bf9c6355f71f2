// Composition of the management API: repositories → route table → router, document and
// metrics. Everything comes in through `deps`; nothing here reads the environment.
import type { LatticeConfig, Logger } from '@lattice/core';
import {
  buildOpenApi,
  buildRouter,
  CATALOG_VERSION_HEADER,
  loadSchemaRegistry,
  type OpenApiDocument,
  type RouteDef,
  type SchemaRegistry,
} from '@lattice/http';
import {
  createPostgresAreaKeyImporter,
  createPostgresMailKeyRepository,
  createPostgresPublicKeyRepository,
  createPostgresRealtimeKeyRepository,
} from '@lattice/keys';
import { createRealtimeHttp, type RealtimeHttp } from '@lattice/realtime';
import {
  createPostgresMemberTokenRepository,
  createPostgresProductRepository,
  type Db,
} from '@lattice/store';
import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import { authorizeRoute } from './auth/access-policy.ts';
import { createMailKeyResolver, createRealtimeKeyResolver } from './auth/area-key-resolver.ts';
import { createBearerAuthenticator } from './auth/bearer-authenticator.ts';
import type { CredentialResolver } from './auth/credential-resolver.ts';
import { createMemberTokenResolver } from './auth/member-token-resolver.ts';
import { httpMetricsMiddleware } from './metrics.ts';
import { createRedisKeyChangeNotifier, type RedisPublisher } from './notify/key-change-notifier.redis.ts';
import { silentKeyChangeNotifier } from './notify/key-change-notifier.ts';
import { MANAGEMENT_API_INFO, managementCatalog, managementRoutes } from './route-table.ts';

export interface ManagementDeps {
  config: LatticeConfig;
  db: Db;
  logger: Logger;
  registry: Registry;
  /** Defaults to the files in schemas/http. */
  schemas?: SchemaRegistry;
  /**
   * Where public key changes are announced to the edges (keyChangesChannel under
   * `config.redisKeyPrefix`). Optional: without it edges see changes on their periodic refresh.
   * The caller owns the connection (and closes it after the server).
   */
  redis?: RedisPublisher;
  /** Extra credential kinds; member tokens, mail keys and realtime keys are always accepted. */
  extraResolvers?: readonly CredentialResolver[];
  /** Check handler answers against their response schemas (tests). */
  validateResponses?: boolean;
  /**
   * The realtime area's services (startRealtimeHttpRuntime(...).http, which the caller closes).
   * Default: namespaces, tokens and reads from `db`, and publishing answering 503.
   */
  realtime?: RealtimeHttp;
}

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
  const mailKeys = createPostgresMailKeyRepository(deps.db);
  const realtimeKeys = createPostgresRealtimeKeyRepository(deps.db);
  const keyChanges = deps.redis
    ? createRedisKeyChangeNotifier({ redis: deps.redis, keyPrefix: deps.config.redisKeyPrefix, logger })
    : silentKeyChangeNotifier;
  const catalog = managementCatalog({
    products: createPostgresProductRepository(deps.db),
    publicKeys: createPostgresPublicKeyRepository(deps.db),
    importer: createPostgresAreaKeyImporter(deps.db),
    mailKeys,
    realtimeKeys,
    keyChanges,
    realtime:
      deps.realtime ?? createRealtimeHttp({ db: deps.db, logger, gatewayUrls: deps.config.gatewayUrls }),
  });
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

  const routes = managementRoutes({ catalog, openApi, db: deps.db, registry: deps.registry });
  const app = express();
  app.disable('x-powered-by');
  // Flat query strings only: nested `a[b]=` syntax would bypass the query schemas' shape.
  app.set('query parser', 'simple');
  app.use(httpMetricsMiddleware(deps.registry));
  app.use((_req, res, next) => {
    res.set(CATALOG_VERSION_HEADER, catalogVersion);
    res.set('Cache-Control', 'no-store');
    res.set('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.use(
    buildRouter(routes, {
      schemas,
      logger,
      authenticators: { management: authenticate },
      authorize: authorizeRoute,
      validateResponses: deps.validateResponses ?? false,
    }),
  );
  return { app, openApi, routes };
}
