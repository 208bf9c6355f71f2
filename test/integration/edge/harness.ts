// Integration-test harness of the public edge: real PostgreSQL (lattice_test, migrated) and
// Redis, edges started through the edge role module on free ports (with the toolkits a test
// gives, or none), products and keys made directly through bootstrap and the public key
// repository. Each test gets its own Redis key prefix and its own products, so tests never share
// a rate-limit count or a key.
import { createRoleShared, type RoleShared } from '@lattice/cli';
import {
  type Clock,
  type ConfigOverrides,
  createLogger,
  type Environment,
  type Logger,
  type Scheduler,
  sleep,
} from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { type EdgeShared, edgeRole, type RunningEdge } from '@lattice/edge';
import { PUBLIC_ROUTES, type PublicHandler, type PublicHandlers } from '@lattice/http';
import {
  createPostgresPublicKeyRepository,
  type ImportSource,
  mintKey,
  type PublicKeyRecord,
  type PublicKeyRepository,
  type PublicKeyScope,
} from '@lattice/keys';
import { closeRedis, createRedis } from '@lattice/redis';
import { deleteKeys } from '@lattice/redis/testing';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';

export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown;
}

/** What the echo toolkit saw of a request that passed the edge. */
export interface Echo {
  route: string;
  productId: string;
  params: Record<string, string>;
  keyId: string | null;
  environment: Environment;
  headers: Record<string, unknown>;
  rawHeaders: string[];
  headersDistinct: Record<string, unknown>;
}

/** Every public route answering 200 with what it received: proves what reaches a toolkit. */
export function echoToolkits(): PublicHandlers[] {
  const echo: PublicHandler = ({ req, ...rest }) => {
    const seen: Echo = {
      route: `${rest.route.method} /${rest.route.toolkit}${rest.route.path}`,
      productId: rest.productId,
      params: rest.params as Record<string, string>,
      keyId: rest.keyId,
      environment: rest.environment,
      headers: { ...req.headers },
      rawHeaders: [...req.rawHeaders],
      headersDistinct: { ...req.headersDistinct },
    };
    return { status: 200, body: seen };
  };
  return [Object.fromEntries(PUBLIC_ROUTES.map((r) => [r.operationId, echo]))];
}

export interface TestEdgeOptions {
  config?: ConfigOverrides;
  /** Default true: reload early on key change notifications. */
  notifications?: boolean;
  /** Default: none registered, every route answering 501 once past the edge's own steps. */
  toolkits?: readonly PublicHandlers[];
  db?: Db;
  logger?: Logger;
  registry?: Registry;
  /** Default: the scheduler when one is given, else the system clock. */
  clock?: Clock;
  /**
   * Runs the edge's key snapshot timers (periodic refresh, notification debounce, expiry);
   * default the system's. With a ManualScheduler a periodic load starts exactly when the test
   * advances it past the refresh period (see snapshotLoaded). Also the edge's clock unless `clock`
   * is given.
   */
  scheduler?: Scheduler;
  /** Every connection the edge opens (a Redis that is down); default: the configured Redis. */
  redis?: Redis;
}

export interface EdgeSuite {
  db: Db;
  /** Admin connection for the tests' own Redis commands (publish, inspect keys). */
  redis: Redis;
  logger: Logger;
  keys: PublicKeyRepository;
  newProduct(): Promise<string>;
  createKey(input: {
    productId: string;
    environment: Environment;
    scope?: PublicKeyScope;
    prefix?: 'lpk_' | 'lmk_' | 'rtk_';
  }): Promise<{ secret: string; record: PublicKeyRecord }>;
  /** Starts an edge with a unique Redis prefix; stopped by closeEdges(). */
  startEdge(environment: Environment, opts?: TestEdgeOptions): Promise<RunningEdge>;
  closeEdges(): Promise<void>;
  close(): Promise<void>;
}

export async function edgeSuite(): Promise<EdgeSuite> {
  const config = testConfig();
  const logger = createLogger({ name: 'edge-test', level: config.logLevel });
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  await migrateLatest(db, logger);
  const redis = createRedis({ url: config.redisUrl, logger, name: 'edge-test-admin' });
  const keys = createPostgresPublicKeyRepository(db);
  const products: string[] = [];
  const prefixes: string[] = [];
  const shareds: RoleShared[] = [];
  let edges: RunningEdge[] = [];

  async function closeEdges(): Promise<void> {
    const closing = edges;
    edges = [];
    await Promise.all(closing.map((e) => e.close()));
    await Promise.all(shareds.splice(0).map((s) => s.close()));
  }

  return {
    db,
    redis,
    logger,
    keys,
    async newProduct() {
      const { product_id } = await bootstrapProduct(db, { name: uniqueName('edge') });
      products.push(product_id);
      return product_id;
    },
    async createKey({ productId, environment, scope = { kind: 'product' }, prefix = 'lpk_' }) {
      const minted = mintKey(prefix);
      const importedFrom: ImportSource | undefined =
        prefix === 'lmk_' ? 'mail' : prefix === 'rtk_' ? 'realtime' : undefined;
      const record = await keys.create({
        productId,
        environment,
        name: uniqueName('key').slice(0, 64),
        prefix,
        hash: minted.hash,
        visible: minted.visible,
        scope,
        createdBy: null,
        ...(importedFrom ? { importedFrom } : {}),
      });
      return { secret: minted.secret, record };
    },
    async startEdge(environment, opts = {}) {
      const overrides = opts.config;
      const redisKeyPrefix = overrides?.redisKeyPrefix ?? `${uniqueName('edge-test')}:`;
      prefixes.push(redisKeyPrefix);
      const edgeConfig = testConfig({
        publicUrls: { production: 'http://127.0.0.1:0', development: 'http://127.0.0.1:0' },
        snapshotRefreshMs: 500,
        // Most tests send far more than 100 requests from 127.0.0.1; the limit tests lower it.
        perIpRequestsPerMinute: 100_000,
        ...overrides,
        redisKeyPrefix,
      });
      const shared = createRoleShared({
        config: edgeConfig,
        logger: opts.logger ?? logger,
        registry: opts.registry ?? new Registry(),
        db: opts.db ?? db,
        ...(opts.clock ? { clock: opts.clock } : {}),
        ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
      });
      shareds.push(shared);
      const down = opts.redis;
      const edgeShared: EdgeShared = {
        ...shared,
        toolkits: opts.toolkits ?? [],
        ...(down ? { redis: () => down } : {}),
      };
      const role = edgeRole(environment);
      const edge = await role.start(
        { ...role.configOf(edgeConfig), keyChangeNotifications: opts.notifications ?? true },
        edgeShared,
      );
      edges.push(edge);
      return edge;
    },
    closeEdges,
    async close() {
      await closeEdges();
      for (const prefix of prefixes) await deleteKeys(redis, prefix);
      if (products.length > 0) await db('products').whereIn('id', products).delete();
      await closeRedis(redis);
      await db.destroy();
    },
  };
}

/**
 * A body each public route with a body schema admits: a request that passes the key check then
 * passes validation too and reaches the (echo) toolkit, so these tests see the key outcomes.
 */
const VALID_BODIES: ReadonlyArray<[suffix: string, body: unknown]> = [
  ['/realtime/messages', { channel: 'chat:edge', data: 1 }],
  ['/realtime/tokens/issue', { subject: 'edge-test', channels: [{ name: 'chat:edge', ops: ['subscribe'] }] }],
  [
    '/mail/emails',
    { from: 'news@edge.example.test', to: 'bob@example.net', subject: 'Hi', html: '<p>x</p>' },
  ],
];

export async function call(
  edge: { url: string },
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const sent = method === 'POST' ? VALID_BODIES.find(([suffix]) => path.endsWith(suffix))?.[1] : undefined;
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: sent === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(sent === undefined ? {} : { body: JSON.stringify(sent) }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the assertion to show.
  }
  return { status: res.status, headers: res.headers, body };
}

export function bearer(secret: string): Record<string, string> {
  return { authorization: `Bearer ${secret}` };
}

/**
 * Waits until the edge has finished a snapshot load after `afterGeneration` (the generation read
 * before the test made the load start: advancing a ManualScheduler past the refresh period, or a
 * change notification's debounce). The load reads the database, so it ends in real time; the
 * timeout only keeps a load that never comes from hanging the test, it bounds no behaviour.
 */
export async function snapshotLoaded(
  edge: RunningEdge,
  afterGeneration: number,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (edge.snapshots.generation() <= afterGeneration) {
    if (Date.now() > deadline) throw new Error(`no snapshot load after generation ${afterGeneration}`);
    await sleep(5);
  }
}

export async function waitFor<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(20);
  }
}

export function errorOf(answer: Answer): { code?: string; message?: string; step?: string } {
  return ((answer.body as { error?: object } | null)?.error ?? {}) as {
    code?: string;
    message?: string;
    step?: string;
  };
}
