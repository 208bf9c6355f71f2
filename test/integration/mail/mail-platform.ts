// The mail toolkit end to end in one process, started through the role modules as `lattice
// start` does: the management API, the production edge and (unless a test only needs the
// accepting side) the actors role with the mail sender and the email-state actor, and the inbound
// role with the receiver of bounces and complaints, over real PostgreSQL, Redis and Kafka (topics
// of the platform's own), handing over to a real SMTP smart host started by the test. One product
// with a verified domain (DKIM key made as `lattice bootstrap` makes it) and its owner token.

import type { ChildProcess } from 'node:child_process';
import { actorsRole, createCatalogTopics } from '@lattice/actors';
import { createRoleShared, type RoleShared } from '@lattice/cli';
import {
  type Clock,
  type ConfigOverrides,
  createLogger,
  type LatticeConfig,
  parseSecretKeys,
  type RunningRole,
  type SecretKeyring,
  sleep,
} from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { edgeRole } from '@lattice/edge';
import { inboundRole } from '@lattice/inbound';
import { createPostgresDomainStore } from '@lattice/mail';
import { managementRole } from '@lattice/management';
import {
  bootstrapProduct,
  createDb,
  createPostgresMemberRepository,
  createPostgresMemberTokenRepository,
  type Db,
  issueMemberToken,
  migrateLatest,
} from '@lattice/store';
import { Registry } from 'prom-client';
import { freePort, startPlatform } from '../../support/lattice-process.ts';
import { type SmartHost, startSmartHost } from '../../support/smart-host.ts';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  json: T;
  text: string;
}

type RunningManagementRole = Awaited<ReturnType<typeof managementRole.start>>;
type RunningEdgeRole = Awaited<ReturnType<ReturnType<typeof edgeRole>['start']>>;

export interface MailProduct {
  productId: string;
  ownerToken: string;
  domain: string;
  domainId: string;
}

export interface MailPlatform {
  config: LatticeConfig;
  db: Db;
  keyring: SecretKeyring;
  smartHost: SmartHost;
  shared: RoleShared;
  management: RunningManagementRole;
  edge: RunningEdgeRole;
  actors: RunningRole | null;
  /** The actors role's metrics. */
  actorsRegistry: Registry;
  /** The inbound role, when it runs (with the actors role). */
  inbound: RunningRole | null;
  /** The inbound role's metrics. */
  inboundRegistry: Registry;
  /** Where the inbound role's receiver of bounces and complaints listens (0: it does not run). */
  inboundPort: number;
  product: MailProduct;
  /** A further member of the platform's product with this role, and their token. */
  member(role: 'owner' | 'admin' | 'member'): Promise<string>;
  /** Another product with a verified domain of its own. */
  newProduct(label: string, domain: string): Promise<MailProduct>;
  /** A management API call with a Bearer credential. */
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    token: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer<T>>;
  /** A public edge call under `/{productId}/mail`, with a key in Authorization when given. */
  edgeCall<T = Record<string, unknown>>(
    method: string,
    path: string,
    key: string | null,
    body?: unknown,
    headers?: Record<string, string>,
    productId?: string,
  ): Promise<Answer<T>>;
  /** A production public key of the product with this scope, usable at once. */
  publicKey(scope: Record<string, unknown>, product?: MailProduct): Promise<string>;
  /** Polls mail_email_get until `done` holds (30 s at most). */
  waitForEmail(
    id: string,
    done: (email: EmailAnswer) => boolean,
    product?: MailProduct,
  ): Promise<EmailAnswer>;
  close(): Promise<void>;
}

export interface EmailAnswer {
  id: string;
  from: string;
  to: string;
  subject: string;
  status: string;
  created_at: string;
  last_event: { type: string; occurred_at: string; bounce_kind: string | null; reason: string | null } | null;
}

export interface MailPlatformOptions {
  label: string;
  /** The actors role, and the inbound role beside it. Default true. */
  actors?: boolean;
  /** The accepting side's clock (send-rate windows); default the system's. */
  clock?: Clock;
  config?: ConfigOverrides;
  /** Default [100, 100, 100]. */
  retryDelaysMs?: number[];
  /** Default the product default (10). */
  sendRatePerSecond?: number;
  /**
   * The actors' sweeps look at the platform's first product only, not at every product of the
   * shared test database (default: every product).
   */
  ownProductOnly?: boolean;
}

async function answerOf<T>(res: Response): Promise<Answer<T>> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json: json as T, text };
}

export async function startMailPlatform(opts: MailPlatformOptions): Promise<MailPlatform> {
  const smartHost = await startSmartHost();
  const name = uniqueName(opts.label);
  const keys = testConfig().secretKeys;
  const base = testConfig({
    kafkaTopicPrefix: `${name}.`,
    kafkaPartitions: 4,
    redisKeyPrefix: `${name}:`,
    managementPort: 0,
    smtpUrl: smartHost.url,
    snapshotRefreshMs: 200,
    secretKeys: keys,
    publicUrls: { production: 'http://127.0.0.1:0', development: 'http://127.0.0.1:0' },
    ...opts.config,
  });
  const config: LatticeConfig = {
    ...base,
    mail: {
      ...base.mail,
      retryDelaysMs: opts.retryDelaysMs ?? [100, 100, 100],
      ...(opts.sendRatePerSecond ? { sendRatePerSecond: opts.sendRatePerSecond } : {}),
      ...opts.config?.mail,
    },
  };
  const logger = createLogger({ name, level: config.logLevel });
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  await migrateLatest(db, logger);
  const keyring = parseSecretKeys(keys);
  const domains = createPostgresDomainStore(db, { keyring });

  async function newProduct(label: string, domain: string): Promise<MailProduct> {
    const made = await bootstrapProduct(db, { name: uniqueName(label), verifiedDomain: domain });
    await domains.ensureKeys(made.product_id);
    const row = (await db('mail_domains').where({ product_id: made.product_id }).first('id')) as {
      id: string;
    };
    return { productId: made.product_id, ownerToken: made.owner_token, domain, domainId: row.id };
  }
  const product = await newProduct(
    opts.label,
    `${name.replace(/[^a-z0-9]/gi, '').toLowerCase()}.example.test`,
  );

  const registry = new Registry();
  const shared = createRoleShared({
    config,
    logger,
    registry,
    db,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  // The actors role creates the topics when it starts; without it the accepting side needs them.
  await createCatalogTopics(config, shared.kafka('topics'), logger);
  const management = await managementRole.start(
    { ...managementRole.configOf(config), validateResponses: true },
    shared,
  );
  const edge = await edgeRole('production').start(edgeRole('production').configOf(config), shared);
  let actors: RunningRole | null = null;
  let inbound: RunningRole | null = null;
  const actorsRegistry = new Registry();
  const inboundRegistry = new Registry();
  let inboundPort = 0;
  if (opts.actors !== false) {
    // A shared clock of its own: the sender and the sweeps run on real time.
    const actorShared = createRoleShared({ config, logger, registry: actorsRegistry, db });
    const running = await actorsRole.start(
      {
        ...actorsRole.configOf(config),
        publicUrls: { production: edge.url, development: edge.url },
        maintenanceProductIds: opts.ownProductOnly ? [product.productId] : null,
        mail: {
          ...actorsRole.configOf(config).mail,
          retrySweepIntervalMs: 50,
          orphanSweepIntervalMs: 60_000,
        },
        webhooks: { ...actorsRole.configOf(config).webhooks, wakeSweepIntervalMs: 200 },
      },
      actorShared,
    );
    actors = {
      ...running,
      close: async () => {
        await running.close();
        await actorShared.close();
      },
    };
    // A process of its own, as deployed: its own connections and metrics.
    const inboundShared = createRoleShared({ config, logger, registry: inboundRegistry, db });
    const receiving = await inboundRole.start(
      { ...inboundRole.configOf(config), host: '127.0.0.1', port: 0 },
      inboundShared,
    );
    inboundPort = receiving.port;
    inbound = {
      ...receiving,
      close: async () => {
        await receiving.close();
        await inboundShared.close();
      },
    };
  }

  const call = async <T>(
    method: string,
    path: string,
    token: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    answerOf<T>(
      await fetch(`${management.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    );

  const platform: MailPlatform = {
    config,
    db,
    keyring,
    smartHost,
    shared,
    management,
    edge,
    actors,
    inbound,
    inboundPort,
    actorsRegistry,
    inboundRegistry,
    product,
    newProduct,
    async member(role) {
      const member = await createPostgresMemberRepository(db).create({
        productId: product.productId,
        name: role,
        role,
      });
      const { token } = await issueMemberToken(createPostgresMemberTokenRepository(db), {
        productId: product.productId,
        memberId: member.id,
        name: `${role} token`,
      });
      return token;
    },
    call,
    async edgeCall<T>(
      method: string,
      path: string,
      key: string | null,
      body?: unknown,
      headers: Record<string, string> = {},
      productId = product.productId,
    ) {
      return answerOf<T>(
        await fetch(`${edge.url}/${productId}/mail${path}`, {
          method,
          redirect: 'manual',
          headers: {
            ...(key ? { authorization: `Bearer ${key}` } : {}),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        }),
      );
    },
    async publicKey(scope, owner = product) {
      const made = await call<{ key: string }>('POST', '/organization/public-keys', owner.ownerToken, {
        name: 'mail test',
        scope,
      });
      if (made.status !== 201) throw new Error(`public key: ${made.status} ${made.text}`);
      // The edge learns of it by notification or within one snapshot period (200 ms here): until
      // then the key answers 401; an unknown email's 404 means it passed the key check.
      const deadline = Date.now() + 10_000;
      for (;;) {
        const probe = await fetch(
          `${edge.url}/${owner.productId}/mail/emails/00000000-0000-4000-8000-000000000000`,
          {
            headers: { authorization: `Bearer ${made.json.key}` },
          },
        );
        if (probe.status !== 401) return made.json.key;
        if (Date.now() > deadline) throw new Error('the edge never learned of the new key');
        await sleep(50);
      }
    },
    async waitForEmail(id, done, owner = product) {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const got = await call<EmailAnswer>('GET', `/mail/emails/${id}`, owner.ownerToken);
        if (got.status === 200 && done(got.json)) return got.json;
        if (Date.now() > deadline) throw new Error(`email ${id} never got there: ${got.status} ${got.text}`);
        await sleep(50);
      }
    },
    async close() {
      await inbound?.close();
      await actors?.close();
      await edge.close();
      await management.close();
      await shared.close();
      await smartHost.close();
      await db.destroy();
    },
  };
  return platform;
}

/**
 * A `lattice start actors` process on the platform's database, topics, keys and smart host (the
 * SIGKILL tests' hosts): a 6 s session, so a killed one's partitions move on soon, and the
 * settings in `env` on top.
 */
export async function startActorsProcess(
  p: MailPlatform,
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const { child } = await startPlatform(
    {
      ...processEnv(p),
      SMTP_URL: p.smartHost.url,
      ACTORS_PORT: String(await freePort()),
      ACTORS_SESSION_TIMEOUT_MS: '6000',
      ...env,
    },
    ['actors'],
    'actors role running',
  );
  return child;
}

/** The settings a `lattice start ROLE` process needs to join the platform's deployment. */
function processEnv(p: MailPlatform): Record<string, string> {
  return {
    DATABASE_URL: p.config.databaseUrl,
    KAFKA_BROKERS: p.config.kafkaBrokers.join(','),
    KAFKA_REPLICATION_FACTOR: String(p.config.kafkaReplicationFactor),
    KAFKA_TOPIC_PREFIX: p.config.kafkaTopicPrefix,
    KAFKA_PARTITIONS: String(p.config.kafkaPartitions),
    REDIS_KEY_PREFIX: p.config.redisKeyPrefix,
    LATTICE_SECRET_KEYS: p.config.secretKeys,
  };
}

export interface InboundProcess {
  child: ChildProcess;
  /** Where its receiver of bounces and complaints listens (INBOUND_SMTP_PORT). */
  smtpPort: number;
  /** Where its `/metrics` and `/healthz` answer (INBOUND_METRICS_PORT). */
  metricsUrl: string;
}

/**
 * A `lattice start inbound` process on the platform's database and topics, its ports those `env`
 * names (INBOUND_SMTP_PORT, INBOUND_METRICS_PORT) or free ones.
 */
export async function startInboundProcess(
  p: MailPlatform,
  env: Record<string, string> = {},
): Promise<InboundProcess> {
  const smtpPort = Number(env.INBOUND_SMTP_PORT ?? (await freePort()));
  const metricsPort = Number(env.INBOUND_METRICS_PORT ?? (await freePort()));
  const { child } = await startPlatform(
    {
      ...processEnv(p),
      ...env,
      INBOUND_SMTP_PORT: String(smtpPort),
      INBOUND_METRICS_PORT: String(metricsPort),
    },
    ['inbound'],
    'inbound-metrics role running',
  );
  return { child, smtpPort, metricsUrl: `http://127.0.0.1:${metricsPort}` };
}
