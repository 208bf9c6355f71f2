// `lattice start`: infra, migrations, topics, every role in one process (both edges
// included), and a demo product, then the URLs. `lattice start ROLE` runs one role alone
// against already running infra; the edge runs one environment: `lattice start edge --env
// production`. Each role comes from its service's role module; this file only picks them and
// owns what they share.

import { join } from 'node:path';
import { actorsRole, createCatalogTopics } from '@lattice/actors';
import {
  ENVIRONMENTS,
  type Environment,
  type Role,
  type RunningRole,
  type SecretHealth,
  sealedValuesMessage,
} from '@lattice/core';
import { edgeRole } from '@lattice/edge';
import { gatewayRole } from '@lattice/gateway';
import { inboundRole } from '@lattice/inbound';
import { ensureInfra } from '@lattice/infra';
import { managementRole } from '@lattice/management';
import { createDb, migrateLatest } from '@lattice/store';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { CommandContext } from '../context.ts';
import { ensureDemoProduct } from '../demo-product.ts';
import { startMailSink } from '../mail-sink.ts';
import { healthWhileStopping, startMetricsServer } from '../metrics-server.ts';
import { createRoleShared, type RoleShared } from '../role-shared.ts';

export const ROLES = ['management', 'edge', 'gateway', 'actors', 'inbound'] as const;

/** Roles that run one environment each; alone they take `--env`. */
const PER_ENVIRONMENT = ['edge', 'gateway'];

type RoleModule = Role<unknown, RoleShared>;

interface Running {
  name: string;
  /** Where the role answers, for the banner. */
  url?: string | undefined;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** `--env`: the environment of an edge or a gateway run alone. */
  env?: string | undefined;
}

function step(message: string): void {
  process.stdout.write(`lattice: ${message}\n`);
}

/** The role modules to run, in start order (stopped in reverse). */
function rolesOf(
  role: string | undefined,
  environments: readonly Environment[],
  demoProductId: string | null,
): RoleModule[] {
  const edges = environments.map((environment) => edgeRole(environment));
  // The local demo chats on the production gateway of `lattice start`'s demo product.
  const gateways = environments.map((environment) =>
    gatewayRole(
      environment,
      demoProductId && environment === 'production' ? { demo: { productId: demoProductId } } : {},
    ),
  );
  // The inbound receiver last: its reports' events are applied by the actors started before it,
  // and it stops first (reports being received are answered before anything else stops).
  if (role === undefined) return [managementRole, ...edges, ...gateways, actorsRole, inboundRole];
  if (role === 'edge') return edges;
  if (role === 'gateway') return gateways;
  if (role === 'inbound') return [inboundRole];
  return [role === 'management' ? managementRole : actorsRole];
}

/** How often a running process checks again that its keyring opens the database's sealed values. */
const SECRETS_CHECK_INTERVAL_MS = 60_000;

/** The role's health, unhealthy too while sealed values of some purpose do not open. */
function withSecretHealth(role: RunningRole, secrets: SecretHealth): RunningRole {
  return {
    ...role,
    health() {
      const failing = secrets.failing();
      const own = role.health();
      if (!own.ok || failing.length === 0) return own;
      return { ok: false, reason: `secrets_unavailable: sealed values of ${failing.join(', ')} do not open` };
    },
  };
}

/**
 * Alone, the actors role, the inbound role, an edge and a gateway serve their metrics on a port of
 * their own (an edge's own port is public); together, management serves them.
 */
async function startRoleMetrics(
  ctx: CommandContext,
  registry: Registry,
  name: string,
  role: RunningRole,
  port: number,
  stopping: () => boolean,
): Promise<Running> {
  // /metrics answers until the exit; /healthz says 503 from the stop on.
  const server = await startMetricsServer(
    registry,
    ctx.config.host,
    port,
    () => healthWhileStopping(role.health(), stopping()),
    { timeouts: ctx.config.httpTimeouts, logger: ctx.logger },
  );
  return {
    name: `${name}-metrics`,
    url: `http://${ctx.config.host}:${port}/metrics`,
    stop: () => server.close(),
  };
}

function roleEnvironments(role: string | undefined, env: string | undefined): Environment[] | string {
  const perEnvironment = role !== undefined && PER_ENVIRONMENT.includes(role);
  if (env !== undefined && !perEnvironment) return '--env applies to the edge and gateway roles only';
  if (role === undefined) return [...ENVIRONMENTS];
  if (!perEnvironment) return [];
  if (env === undefined || !(ENVIRONMENTS as readonly string[]).includes(env)) {
    return `the ${role} runs one environment: --env ${ENVIRONMENTS.join('|')}`;
  }
  return [env as Environment];
}

export async function runStart(
  ctx: CommandContext,
  role: string | undefined,
  opts: StartOptions = {},
): Promise<number> {
  const { logger } = ctx;
  // The whole platform on one machine is local development: webhooks may target a receiver on
  // this machine or the LAN unless WEBHOOK_ALLOW_PRIVATE_TARGETS says otherwise (decisions.md).
  const config =
    role === undefined && ctx.config.webhooks.allowPrivateTargets === null
      ? { ...ctx.config, webhooks: { ...ctx.config.webhooks, allowPrivateTargets: true } }
      : ctx.config;
  if (role !== undefined && !(ROLES as readonly string[]).includes(role)) {
    console.error(`lattice start: unknown role "${role}"; roles: ${ROLES.join(', ')}`);
    return 2;
  }
  // Listen first: a stop asked for while roles start is honoured once they have started.
  const stopRequested = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const environments = roleEnvironments(role, opts.env);
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
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const shared = createRoleShared({ config, logger, registry, db });
  if (role === undefined) {
    const created = await createCatalogTopics(config, shared.kafka('start'), logger);
    if (created.length > 0)
      step(`created ${created.length} topic(s) with ${config.kafkaPartitions} partitions`);
  }

  // Before any role serves: a keyring that does not open what the database holds would fail
  // requests one by one while saying it is up. Roles that open no sealed value skip it.
  const checksSecrets = role !== 'inbound';
  if (checksSecrets) {
    const problems = await shared.checkSealedSecrets();
    const malformed = problems.filter((p) => p.reason === 'malformed');
    if (malformed.length > 0)
      logger.warn({ malformed }, 'sealed values that are malformed and open under no key');
    if (problems.length > malformed.length) {
      console.error(`lattice: ${sealedValuesMessage(problems.filter((p) => p.reason !== 'malformed'))}`);
      await shared.close();
      await db.destroy();
      return 1;
    }
  }
  // And again every minute: `/healthz` says so when values stop opening (a restored backup, a
  // changed LATTICE_SECRET_KEYS on another host that resealed).
  const secretsCheck = checksSecrets
    ? setInterval(() => {
        shared.checkSealedSecrets().then(
          (problems) => {
            const keyring = problems.filter((p) => p.reason !== 'malformed');
            if (keyring.length > 0) logger.error({ problems: keyring }, 'sealed secrets do not open');
          },
          (err: unknown) => logger.warn({ err }, 'could not check the sealed secrets'),
        );
      }, SECRETS_CHECK_INTERVAL_MS).unref()
    : undefined;

  // The demo product exists before the roles start: the production gateway serves its demo.
  const demoProduct =
    role === undefined ? await ensureDemoProduct(db, config.dataDir, shared.secretKeys) : null;
  const running: Running[] = [];
  if (role === undefined) {
    // The default smart host of a local platform: mail is kept where a developer can read it.
    const sink = await startMailSink({
      host: config.host,
      port: config.smtpSinkPort,
      dir: join(config.dataDir, 'mailbox'),
      logger,
    });
    running.push({
      name: 'mailbox',
      url: `smtp://${config.host}:${sink.port} → ${sink.dir}`,
      stop: () => sink.close(),
    });
  }
  const started: Array<{ module: RoleModule; role: RunningRole }> = [];
  let metrics: Running | undefined;
  let stopping = false;
  for (const module of rolesOf(role, environments, demoProduct?.demo.product_id ?? null)) {
    const r = await module.start(module.configOf(config), shared);
    started.push({ module, role: r });
    running.push({ name: module.name, url: r.url, stop: () => r.close() });
  }

  if (demoProduct) {
    printBanner({ ...ctx, config }, running, demoProduct.demo, demoProduct.created);
  } else {
    const [alone] = started;
    const port = alone?.module.metricsPortOf?.(config);
    if (alone && port !== undefined)
      metrics = await startRoleMetrics(
        ctx,
        registry,
        alone.module.name,
        withSecretHealth(alone.role, shared.secretHealth),
        port,
        () => stopping,
      );
    for (const r of metrics ? [...running, metrics] : running)
      step(`${r.name} role running${r.url ? ` at ${r.url}` : ''}`);
  }

  await stopRequested;
  stopping = true;
  clearInterval(secretsCheck);
  step('stopping…');
  for (const r of running.reverse()) await r.stop();
  // The role's own metrics and health stop last: a draining gateway (up to 30 s) is scraped and
  // its /healthz answers 503 "draining" until it has closed every connection.
  await metrics?.stop();
  await shared.close();
  await db.destroy();
  step('stopped (infra left running; `npm run infra:down` stops what lattice started)');
  // Named for whoever hunts a leak; the command then exits whatever is left (see main.ts).
  logger.debug({ resources: process.getActiveResourcesInfo() }, 'resources still open after the stop');
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
    `  dashboard        ${api}/dashboard/settings/public-access  (sign in with the owner_token below)`,
    `  public edge      ${urlOf('edge-production')}  (production)`,
    `  public dev edge  ${urlOf('edge-development')}  (development)`,
    `  gateway          ${urlOf('gateway-production')}  (production, WebSocket)`,
    `  dev gateway      ${urlOf('gateway-development')}  (development, WebSocket)`,
    `  realtime demo    ${urlOf('gateway-production').replace(/^ws/, 'http')}/demo  (open it in two tabs)`,
    `  local mailbox    ${urlOf('mailbox')}  (the default smart host; one .eml per message)`,
    `  inbound SMTP     ${urlOf('inbound')}  (bounces and complaints: the return paths' MX)`,
    config.webhooks.allowPrivateTargets
      ? '  mail webhooks    may target this machine and the LAN (WEBHOOK_ALLOW_PRIVATE_TARGETS=false refuses)'
      : '  mail webhooks    public HTTPS targets only (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)',
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
    '  # 4. send an email from the verified domain; the local mailbox keeps it, then read its status:',
    `  curl -H "Authorization: Bearer ${demo.owner_token}" -H 'content-type: application/json' \\`,
    `       -d '{"from":"hello@${demo.verified_domain}","to":"you@example.com","subject":"Hi","html":"<p>Hi</p>"}' ${api}/mail/emails`,
    `  curl -H "Authorization: Bearer ${demo.owner_token}" ${api}/mail/emails/<id>`,
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
