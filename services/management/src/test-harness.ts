// Integration-test setup shared by this service's *.int.test.ts files: a migrated test
// database, a real listening management server, and products made through bootstrap.
import { createLogger, type Logger } from '@lattice/core';
import type { OpenApiDocument, RouteDef } from '@lattice/http';
import { type BootstrapResult, bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import { Registry } from 'prom-client';
import { testConfig, uniqueName } from '../../../test/support/env.ts';
import { buildManagementApp, type ManagementDeps } from './app.ts';
import { type RunningManagement, startManagement } from './server.ts';

export interface TestManagement {
  db: Db;
  server: RunningManagement;
  routes: RouteDef[];
  openApi: OpenApiDocument;
  registry: Registry;
  logLines: string[];
  newProduct(label?: string): Promise<BootstrapResult & { name: string }>;
  close(): Promise<void>;
}

export async function startTestManagement(): Promise<TestManagement> {
  const config = testConfig({ managementPort: 0 });
  const logLines: string[] = [];
  const logger: Logger = createLogger({
    name: 'management-test',
    level: 'debug',
    destination: { write: (line: string) => logLines.push(line) },
  });
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  await migrateLatest(db, logger);
  const registry = new Registry();
  const deps: ManagementDeps = { config, db, logger, registry, validateResponses: true };
  const { routes, openApi } = buildManagementApp(deps);
  const server = await startManagement(deps);
  return {
    db,
    server,
    routes,
    openApi,
    registry,
    logLines,
    async newProduct(label = 'mgmt') {
      const name = uniqueName(label);
      return { name, ...(await bootstrapProduct(db, { name })) };
    },
    async close() {
      await server.close();
      await db.destroy();
    },
  };
}
