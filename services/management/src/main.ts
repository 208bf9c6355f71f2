// Composition root of the management role: `npx tsx services/management/src/main.ts`.
// The only place here that reads the environment.
import { createLogger, loadConfig } from '@lattice/core';
import { createDb, migrateLatest } from '@lattice/store';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { startManagement } from './server.ts';

const config = loadConfig(process.env);
const logger = createLogger({ name: 'management', level: config.logLevel });
const db = createDb({ databaseUrl: config.databaseUrl, logger });
await migrateLatest(db, logger);

const registry = new Registry();
collectDefaultMetrics({ register: registry });
const running = await startManagement({ config, db, logger, registry });
logger.info({ url: running.url }, 'management API listening');

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'management API stopping');
  await running.close();
  await db.destroy();
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stop(signal).catch((err: unknown) => {
      logger.error({ err }, 'management API did not stop cleanly');
      process.exitCode = 1;
    });
  });
}
