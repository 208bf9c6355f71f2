// Integration-test setup shared by this service's *.int.test.ts files (and the management
// integration tests under test/integration): a migrated test database, a real Redis with a key
// prefix of its own, a real listening management server, and products made through bootstrap.
import { createRoleShared } from '@lattice/cli';
import type { ConfigOverrides, ErrorBody, LatticeConfig } from '@lattice/core';
import { type CapturedLogs, captureLogs, testConfig, uniqueName } from '@lattice/core/testing';
import type { OpenApiDocument, RouteDef } from '@lattice/http';
import type { createRedis } from '@lattice/redis';
import {
  addMember,
  type BootstrapResult,
  bootstrapProduct,
  createDb,
  type Db,
  type MemberRole,
  migrateLatest,
} from '@lattice/store';
import { Registry } from 'prom-client';
import { type ManagementSettings, managementRole } from '../role.ts';
import type { RunningManagement } from '../server.ts';

export interface TestManagement {
  config: LatticeConfig;
  db: Db;
  /** The connection management publishes key changes on. */
  redis: ReturnType<typeof createRedis>;
  server: RunningManagement;
  routes: RouteDef[];
  openApi: OpenApiDocument;
  registry: Registry;
  /** Everything the server logged, down to debug. */
  logs: CapturedLogs;
  newProduct(label?: string, opts?: { verifiedDomain?: string }): Promise<BootstrapResult & { name: string }>;
  /** A further member of the product, and a token of theirs. */
  newMember(productId: string, role: MemberRole): Promise<{ memberId: string; token: string }>;
  /** One JSON request; `json` is the parsed body, typed as the caller expects it (check status first). */
  call<T = ErrorBody>(method: string, path: string, token?: string, body?: unknown): Promise<ApiAnswer<T>>;
  close(): Promise<void>;
}

export interface ApiAnswer<T> {
  status: number;
  json: T;
  text: string;
}

export async function startTestManagement(
  opts: {
    redisUrl?: string;
    /** Further configuration (the mail area's DNS_SERVERS, LATTICE_SECRET_KEYS, …). */
    config?: ConfigOverrides;
    /** Settings the configuration does not carry (the DNS timeout of verification). */
    settings?: Partial<ManagementSettings>;
  } = {},
): Promise<TestManagement> {
  const config = testConfig({
    managementPort: 0,
    redisKeyPrefix: `${uniqueName('mgmt')}:`,
    ...(opts.redisUrl ? { redisUrl: opts.redisUrl } : {}),
    ...opts.config,
  });
  const logs = captureLogs({ name: 'management-test', level: 'debug' });
  const { logger } = logs;
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  await migrateLatest(db, logger);
  const registry = new Registry();
  const shared = createRoleShared({ config, logger, registry, db });
  const server = await managementRole.start(
    { ...managementRole.configOf(config), validateResponses: true, ...opts.settings },
    shared,
  );
  const { routes, openApi } = server;
  const redis = shared.redis('management');
  return {
    config,
    db,
    redis,
    server,
    routes,
    openApi,
    registry,
    logs,
    async newProduct(label = 'mgmt', opts = {}) {
      const name = uniqueName(label);
      return { name, ...(await bootstrapProduct(db, { name, ...opts })) };
    },
    async newMember(productId, role) {
      // The way `lattice bootstrap --product-id ID --role ROLE` adds one (an audit entry by `cli`).
      const added = await addMember(db, { productId, role });
      return { memberId: added.member_id, token: added.member_token };
    },
    async call<T>(method: string, path: string, token?: string, body?: unknown): Promise<ApiAnswer<T>> {
      const headers: Record<string, string> = {};
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, text, json: (text === '' ? undefined : JSON.parse(text)) as T };
    },
    async close() {
      await server.close();
      await shared.close();
      await db.destroy();
    },
  };
}
