// `lattice start`: infra, migrations, topics, every role in one process, and a demo product,
// then the URLs. `lattice start ROLE` runs one role alone against already running infra.

import { createCatalogTopics, startActorsRole } from '@lattice/actors';
import { ensureInfra } from '@lattice/infra';
import { createKafka } from '@lattice/kafka';
import { startManagement } from '@lattice/management';
import { createDb, type Db, migrateLatest } from '@lattice/store';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { CommandContext } from '../context.ts';
import { ensureDemoProduct } from '../demo-product.ts';
import { startMetricsServer } from '../metrics-server.ts';

export const ROLES = ['management', 'actors'] as const;
type Role = (typeof ROLES)[number];

interface Running {
  name: string;
  stop(): Promise<void>;
}

function step(message: string): void {
  process.stdout.write(`lattice: ${message}\n`);
}

async function startRole(ctx: CommandContext, role: Role, db: Db, registry: Registry): Promise<Running> {
  const { config, logger } = ctx;
  if (role === 'management') {
    const management = await startManagement({ config, db, logger, registry });
    return { name: 'management', stop: () => management.close() };
  }
  const kafka = createKafka({
    brokers: config.kafkaBrokers,
    clientId: `${config.kafkaClientId}-actors`,
    logger,
  });
  const actors = await startActorsRole({ config, kafka, logger, registry, kinds: [] });
  return { name: 'actors', stop: () => actors.stop() };
}

/** Alone, the actors role serves its metrics on its own port; together, management serves them. */
async function startRoleMetrics(ctx: CommandContext, registry: Registry): Promise<Running> {
  const server = await startMetricsServer(registry, ctx.config.host, ctx.config.actorsPort);
  return { name: 'actors-metrics', stop: () => server.close() };
}

export async function runStart(ctx: CommandContext, role: string | undefined): Promise<number> {
  const { config, logger } = ctx;
  if (role !== undefined && !(ROLES as readonly string[]).includes(role)) {
    console.error(`lattice start: unknown role "${role}"; roles: ${ROLES.join(', ')}`);
    return 2;
  }
  if (role === undefined) {
    step('starting infra (Kafka, Redis, PostgreSQL)…');
    const infra = await ensureInfra({ config, logger, searchPath: process.env.PATH ?? '' });
    step(
      `infra ready in ${(infra.elapsedMs / 1000).toFixed(1)} s (started: ${infra.started.join(', ') || 'none'})`,
    );
  }
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  const { applied } = await migrateLatest(db, logger);
  if (applied.length > 0) step(`applied ${applied.length} migration(s)`);
  if (role === undefined) {
    const kafka = createKafka({
      brokers: config.kafkaBrokers,
      clientId: `${config.kafkaClientId}-start`,
      logger,
    });
    const created = await createCatalogTopics(config, kafka, logger);
    if (created.length > 0)
      step(`created ${created.length} topic(s) with ${config.kafkaPartitions} partitions`);
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const running: Running[] = [];
  for (const r of role === undefined ? ROLES : [role as Role])
    running.push(await startRole(ctx, r, db, registry));

  if (role === undefined) {
    const { demo, created } = await ensureDemoProduct(db, config.dataDir);
    printBanner(ctx, demo, created);
  } else {
    if (role === 'actors') running.push(await startRoleMetrics(ctx, registry));
    step(`${role} role running`);
  }

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  step('stopping…');
  for (const r of running.reverse()) await r.stop();
  await db.destroy();
  step('stopped (infra left running; `npm run infra:down` stops what lattice started)');
  return 0;
}

function printBanner(
  { config }: CommandContext,
  demo: { product_id: string; owner_token: string; verified_domain: string },
  created: boolean,
): void {
  const api = `http://${config.host}:${config.managementPort}`;
  const lines = [
    '',
    'Lattice is running.',
    '',
    `  management API   ${api}`,
    `  OpenAPI 3.1      ${api}/openapi.json`,
    `  health, metrics  ${api}/healthz  ${api}/metrics`,
    `  Kafka            ${config.kafkaBrokers.join(',')}`,
    `  Redis            ${config.redisUrl}`,
    `  PostgreSQL       ${config.databaseUrl}`,
    '',
    `Demo product${created ? ' (created now)' : ''}:`,
    `  product_id       ${demo.product_id}`,
    `  owner_token      ${demo.owner_token}`,
    `  verified domain  ${demo.verified_domain}`,
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${demo.owner_token}" ${api}/organization/product`,
    '',
    'Ctrl-C stops Lattice.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}
