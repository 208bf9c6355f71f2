// `lattice start`: infra, migrations, topics, every role in one process (both edges
// included), and a demo product, then the URLs. `lattice start ROLE` runs one role alone
// against already running infra; the edge runs one environment: `lattice start edge --env
// production`.

import { join } from 'node:path';
import {
  channelActorRegistration,
  createCatalogTopics,
  realtimeJobs,
  startActorsRole,
} from '@lattice/actors';
import { ENVIRONMENTS, type Environment, systemClock } from '@lattice/core';
import { createToolkitRegistry, registerRealtimeToolkit, startEdge } from '@lattice/edge';
import { ensureInfra } from '@lattice/infra';
import { createKafka } from '@lattice/kafka';
import { createRedisKeyChangeNotifier, startManagement } from '@lattice/management';
import {
  createFilesystemPayloadStore,
  createPayloadStoreRegistry,
  type RealtimeHttpRuntime,
  realtimeHttpMetrics,
  realtimeHttpSettingsOf,
  startRealtimeHttpRuntime,
} from '@lattice/realtime';
import { closeRedis, createRedis } from '@lattice/redis';
import { createDb, type Db, migrateLatest } from '@lattice/store';
import type { Redis } from 'ioredis';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { CommandContext } from '../context.ts';
import { ensureDemoProduct } from '../demo-product.ts';
import { startMetricsServer } from '../metrics-server.ts';

export const ROLES = ['management', 'edge', 'actors'] as const;
type Role = (typeof ROLES)[number];

interface Running {
  name: string;
  healthy?: () => boolean;
  /** Where the role answers, for the banner. */
  url?: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** `--env`: the edge's environment when the edge runs alone. */
  env?: string | undefined;
}

function step(message: string): void {
  process.stdout.write(`lattice: ${message}\n`);
}

interface Shared {
  db: Db;
  registry: Registry;
  /** Commands connection (limits, announcements); opened on first use, closed after every role stopped. */
  redis(): Redis;
  /** Realtime publishing, tokens and reads, shared by the edges and management; opened on first use. */
  realtime(): RealtimeHttpRuntime;
}

async function startEdges(ctx: CommandContext, environments: readonly Environment[], shared: Shared) {
  const running: Running[] = [];
  const toolkits = createToolkitRegistry();
  registerRealtimeToolkit(toolkits, { realtime: shared.realtime().http });
  for (const environment of environments) {
    const edge = await startEdge({
      toolkits,
      config: ctx.config,
      environment,
      db: shared.db,
      redis: shared.redis(),
      logger: ctx.logger,
      registry: shared.registry,
    });
    running.push({
      name: `edge-${environment}`,
      url: edge.url,
      stop: () => edge.close(),
      healthy: () => edge.snapshots.current() !== null,
    });
  }
  return running;
}

async function startRole(ctx: CommandContext, role: Exclude<Role, 'edge'>, shared: Shared): Promise<Running> {
  const { db, registry } = shared;
  const { config, logger } = ctx;
  if (role === 'management') {
    // With Redis, key changes are announced so the edges reload early instead of next period.
    const management = await startManagement(
      { host: config.host, port: config.managementPort },
      {
        db,
        logger,
        registry,
        keyChanges: createRedisKeyChangeNotifier({
          redis: shared.redis(),
          keyPrefix: config.redisKeyPrefix,
          logger,
        }),
        realtime: shared.realtime().http,
      },
    );
    return { name: 'management', url: management.url, stop: () => management.close() };
  }
  const kafka = createKafka({
    brokers: config.kafkaBrokers,
    clientId: `${config.kafkaClientId}-actors`,
    logger,
  });
  const actors = await startActorsRole({
    config,
    kafka,
    logger,
    registry,
    kinds: [
      channelActorRegistration({ db, redis: shared.redis(), logger, redisKeyPrefix: config.redisKeyPrefix }),
    ],
    jobs: realtimeJobs({ db, logger }),
  });
  return { name: 'actors', stop: () => actors.stop(), healthy: () => actors.healthy() };
}

/**
 * Alone, the actors role and an edge serve their metrics on a port of their own (an edge's own
 * port is public); together, management serves them.
 */
async function startRoleMetrics(
  ctx: CommandContext,
  registry: Registry,
  role: Running,
  port: number,
  unhealthyReason: string,
): Promise<Running> {
  const server = await startMetricsServer(
    registry,
    ctx.config.host,
    port,
    () => role.healthy?.() ?? true,
    unhealthyReason,
  );
  return {
    name: `${role.name}-metrics`,
    url: `http://${ctx.config.host}:${port}/metrics`,
    stop: () => server.close(),
  };
}

function edgeEnvironments(role: string | undefined, env: string | undefined): Environment[] | string {
  if (env !== undefined && role !== 'edge') return '--env applies to the edge role only';
  if (role === undefined) return [...ENVIRONMENTS];
  if (role !== 'edge') return [];
  if (env === undefined || !(ENVIRONMENTS as readonly string[]).includes(env)) {
    return `the edge runs one environment: --env ${ENVIRONMENTS.join('|')}`;
  }
  return [env as Environment];
}

export async function runStart(
  ctx: CommandContext,
  role: string | undefined,
  opts: StartOptions = {},
): Promise<number> {
  const { config, logger } = ctx;
  if (role !== undefined && !(ROLES as readonly string[]).includes(role)) {
    console.error(`lattice start: unknown role "${role}"; roles: ${ROLES.join(', ')}`);
    return 2;
  }
  // Listen first: a stop asked for while roles start is honoured once they have started.
  const stopRequested = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const environments = edgeEnvironments(role, opts.env);
  if (typeof environments === 'string') {
    console.error(`lattice start: ${environments}`);
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
  let redis: Redis | undefined;
  let realtime: RealtimeHttpRuntime | undefined;
  let realtimeRedis: Redis | undefined;
  const shared: Shared = {
    db,
    registry,
    redis: () => (redis ??= createRedis({ url: config.redisUrl, logger, name: 'lattice-commands' })),
    realtime: () => {
      if (realtime) return realtime;
      realtimeRedis = createRedis({ url: config.redisUrl, logger, name: 'lattice-realtime' });
      realtime = startRealtimeHttpRuntime(realtimeHttpSettingsOf(config), {
        db,
        logger,
        redis: realtimeRedis,
        kafka: createKafka({
          brokers: config.kafkaBrokers,
          clientId: `${config.kafkaClientId}-realtime`,
          logger,
        }),
        payloads: createPayloadStoreRegistry({
          store: createFilesystemPayloadStore({ dir: join(config.dataDir, 'payloads') }),
        }),
        metrics: realtimeHttpMetrics(registry),
        clock: systemClock,
      });
      return realtime;
    },
  };
  const running: Running[] = [];
  for (const r of role === undefined ? ROLES : [role as Role]) {
    if (r === 'edge') running.push(...(await startEdges(ctx, environments, shared)));
    else running.push(await startRole(ctx, r, shared));
  }

  if (role === undefined) {
    const { demo, created } = await ensureDemoProduct(db, config.dataDir);
    printBanner(ctx, running, demo, created);
  } else {
    if (role === 'actors') {
      running.push(
        await startRoleMetrics(
          ctx,
          registry,
          running[0]!,
          config.actorsPort,
          'an actor host stopped consuming',
        ),
      );
    } else if (role === 'edge') {
      const port = config.edgeMetricsPorts[environments[0]!];
      running.push(await startRoleMetrics(ctx, registry, running[0]!, port, 'no key snapshot loaded yet'));
    }
    for (const r of running) step(`${r.name} role running${r.url ? ` at ${r.url}` : ''}`);
  }

  await stopRequested;
  step('stopping…');
  for (const r of running.reverse()) await r.stop();
  if (realtime) await realtime.close();
  if (realtimeRedis) await closeRedis(realtimeRedis);
  if (redis) await closeRedis(redis);
  await db.destroy();
  step('stopped (infra left running; `npm run infra:down` stops what lattice started)');
  return 0;
}

function printBanner(
  { config }: CommandContext,
  running: readonly Running[],
  demo: { product_id: string; owner_token: string; verified_domain: string },
  created: boolean,
): void {
  const api = `http://${config.host}:${config.managementPort}`;
  const urlOf = (name: string) => running.find((r) => r.name === name)?.url ?? '(not running)';
  const lines = [
    '',
    'Lattice is running.',
    '',
    `  management API   ${api}`,
    `  OpenAPI 3.1      ${api}/openapi.json`,
    `  health, metrics  ${api}/healthz  ${api}/metrics`,
    `  public edge      ${urlOf('edge-production')}  (production)`,
    `  public dev edge  ${urlOf('edge-development')}  (development)`,
    `  Kafka            ${config.kafkaBrokers.join(',')}`,
    `  Redis            ${withoutCredentials(config.redisUrl)}`,
    `  PostgreSQL       ${withoutCredentials(config.databaseUrl)}`,
    '',
    `Demo product${created ? ' (created now)' : ''}:`,
    `  product_id       ${demo.product_id}`,
    `  owner_token      ${demo.owner_token}`,
    `  verified domain  ${demo.verified_domain}`,
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${demo.owner_token}" ${api}/organization/product`,
    '  # 1. a public key for your backend (the `key` field is shown only once):',
    `  curl -H "Authorization: Bearer ${demo.owner_token}" -H 'content-type: application/json' \\`,
    `       -d '{"name":"backend","scope":{"kind":"product"}}' ${api}/organization/public-keys`,
    '  # 2. a namespace for channels chat:* that keeps an hour of history:',
    `  curl -X PUT -H "Authorization: Bearer ${demo.owner_token}" -H 'content-type: application/json' \\`,
    `       -d '{"history_window_seconds":3600}' ${api}/realtime/namespaces/chat`,
    '  # 3. publish through the public edge with the key, then read the history back:',
    `  curl -H "Authorization: Bearer <key>" -H 'content-type: application/json' \\`,
    `       -d '{"channel":"chat:lobby","data":{"text":"hi"}}' ${urlOf('edge-production')}/${demo.product_id}/realtime/messages`,
    `  curl -H "Authorization: Bearer <key>" '${urlOf('edge-production')}/${demo.product_id}/realtime/channels/chat:lobby/history?last_n=10'`,
    '',
    'Ctrl-C stops Lattice.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

/** A service URL fit to print: any password in it is masked. */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
