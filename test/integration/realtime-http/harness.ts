// Integration harness of the realtime HTTP surfaces: real Kafka, Redis and PostgreSQL; the
// actors role in this process (its role module, as `lattice start actors` runs it; or started
// later, when a test needs commands that no channel actor applies yet); and "stacks"
// of the management role plus both edge roles (production and development) over one set of
// shared resources each (createRoleShared, as `lattice start` builds it), so a test can choose
// the deployment: quota numbers, payload storage, a clock, or a Kafka that is not there. Unique
// topic prefix, Redis key prefix and products per file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { actorsRole, catalogTopicNames, createCatalogTopics } from '@lattice/actors';
import { createRoleShared } from '@lattice/cli';
import {
  type Clock,
  createLogger,
  type Environment,
  type LatticeConfig,
  type Logger,
  type Scheduler,
  sleep,
  systemClock,
  systemScheduler,
} from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { edgeRole, type RunningEdge } from '@lattice/edge';
import { managementRole, type RunningManagement } from '@lattice/management';
import {
  createFilesystemPayloadStore,
  createPayloadStoreRegistry,
  type PublishQuota,
  type RealtimeHttp,
} from '@lattice/realtime';
import { bootstrapProduct, createDb, type Db, migrateLatest } from '@lattice/store';
import type { Redis } from 'ioredis';
import { Kafka, type Kafka as KafkaClient, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: T;
}

export interface ErrorAnswerBody {
  error: { code: string; message: string; step?: string; fields?: Array<{ path: string; message: string }> };
}

export interface StackOptions {
  /** Default: the spec's defaults. */
  quota?: PublishQuota;
  /** Payload storage for every product (default) or for none. */
  payloads?: 'all' | 'none';
  /** The runtime's clock (quota windows, issued_at, history cutoffs). */
  clock?: Clock;
  /** A Kafka nobody answers on: every publish fails (503). */
  kafkaUnavailable?: boolean;
  publishTimeoutMs?: number;
  /** The edges' per-IP limit (default: high enough never to refuse). */
  perIpRequestsPerMinute?: number;
  /** The edges' clock (per-IP windows, revocation grace). */
  edgeClock?: Clock;
  /** The timers of publishes waiting for their offset (`Prefer: return=representation`). */
  scheduler?: Scheduler;
}

export interface Stack {
  /** The realtime services this stack's management and edges share. */
  runtime: { http: RealtimeHttp };
  /** Where this stack's payload storage keeps stored payloads. */
  payloadDir: string;
  management: RunningManagement;
  edges: Record<Environment, RunningEdge>;
  close(): Promise<void>;
}

export interface Product {
  productId: string;
  ownerToken: string;
  /** A realtime key (`rtk_`) of the product, made through the management API. */
  rtkKey: string;
}

export interface RealtimeHttpBase {
  config: LatticeConfig;
  db: Db;
  logger: Logger;
  kafka: KafkaClient;
  redis: Redis;
  newProduct(management: RunningManagement): Promise<Product>;
  startStack(opts?: StackOptions): Promise<Stack>;
  /** Starts the actors role, for a base made without it (again: nothing). */
  startActors(): Promise<void>;
  close(): Promise<void>;
}

export interface RealtimeHttpBaseOptions {
  /**
   * false: the topics are made, but no channel actor runs until startActors(); publishes are
   * durably accepted and wait in Kafka. Default true.
   */
  actors?: boolean;
}

export async function createRealtimeHttpBase(
  label: string,
  baseOpts: RealtimeHttpBaseOptions = {},
): Promise<RealtimeHttpBase> {
  const config = testConfig({
    kafkaTopicPrefix: `${uniqueName(label)}.`,
    redisKeyPrefix: `${uniqueName(label)}:`,
    managementPort: 0,
    publicUrls: { production: 'http://127.0.0.1:0', development: 'http://127.0.0.1:0' },
    snapshotRefreshMs: 500,
    // Tests send far more than 100 requests a minute from 127.0.0.1; one test lowers it.
    perIpRequestsPerMinute: 1_000_000,
  });
  const logger = createLogger({ name: label, level: config.logLevel });
  const db = createDb({ databaseUrl: config.databaseUrl, logger, poolMax: 20 });
  await migrateLatest(db, logger);
  const actorsShared = createRoleShared({ config, logger, registry: new Registry(), db });
  const kafka = actorsShared.kafka('actors');
  const redis = actorsShared.redis('actors');
  let actors: Promise<Awaited<ReturnType<typeof actorsRole.start>>> | undefined;
  const startActors = async () => {
    actors ??= actorsRole.start(
      // The database is shared with other test files: the maintenance jobs look at no product.
      { ...actorsRole.configOf(config), maintenanceProductIds: [] },
      actorsShared,
    );
    await actors;
  };
  if (baseOpts.actors === false) await createCatalogTopics(actorsRole.configOf(config), kafka, logger);
  else await startActors();
  const stacks: Stack[] = [];
  const dirs: string[] = [];
  const products: string[] = [];

  async function startStack(opts: StackOptions = {}): Promise<Stack> {
    const dir = await mkdtemp(join(tmpdir(), 'lattice-payloads-'));
    dirs.push(dir);
    const nowhere = new Kafka({
      clientId: 'nowhere',
      brokers: ['127.0.0.1:1'],
      connectionTimeout: 300,
      // The idempotent producer refuses retries: 0; a few quick ones, then it gives up.
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 300 },
      logLevel: logLevel.NOTHING,
    });
    const shared = createRoleShared({
      config,
      logger,
      registry: new Registry(),
      db,
      // A scheduler given for the publish waits is not the runtime's clock.
      ...(opts.clock || opts.scheduler ? { clock: opts.clock ?? systemClock } : {}),
      ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
      ...(opts.kafkaUnavailable ? { kafka: () => nowhere } : {}),
      payloads: createPayloadStoreRegistry({
        store: createFilesystemPayloadStore({ dir }),
        products: opts.payloads === 'none' ? [] : 'all',
      }),
      realtime: {
        ...(opts.quota ? { quota: opts.quota } : {}),
        publishTimeoutMs: opts.publishTimeoutMs ?? (opts.kafkaUnavailable ? 2000 : 10_000),
        policyCacheTtlMs: 0,
      },
    });
    const management = await managementRole.start(
      { ...managementRole.configOf(config), validateResponses: true },
      shared,
    );
    const edges = {} as Record<Environment, RunningEdge>;
    for (const environment of ['production', 'development'] as const) {
      const role = edgeRole(environment);
      const settings = role.configOf(config);
      edges[environment] = await role.start(
        // A per-IP limit of its own counts in a key space of its own (the other stacks' edges
        // count 127.0.0.1 too); such an edge sees new keys on its periodic refresh.
        opts.perIpRequestsPerMinute
          ? {
              ...settings,
              perIpRequestsPerMinute: opts.perIpRequestsPerMinute,
              redisKeyPrefix: `${uniqueName('rt-ip')}:`,
            }
          : settings,
        // The scheduler of the publish waits is not the edges' (their key snapshot timers).
        { ...shared, clock: opts.edgeClock ?? systemClock, scheduler: systemScheduler },
      );
    }
    const stack: Stack = {
      runtime: { http: shared.realtime() },
      payloadDir: dir,
      management,
      edges,
      async close() {
        await Promise.all(Object.values(edges).map((e) => e.close()));
        await management.close();
        await shared.close();
      },
    };
    stacks.push(stack);
    return stack;
  }

  return {
    config,
    db,
    logger,
    kafka,
    redis,
    async newProduct(management) {
      const boot = await bootstrapProduct(db, { name: uniqueName(label) });
      products.push(boot.product_id);
      const created = await mgmt<{ key: string }>(
        management,
        'POST',
        '/realtime/api-keys',
        boot.owner_token,
        {
          name: 'tests',
        },
      );
      if (created.status !== 201) throw new Error(`rtk_ key: ${created.status}`);
      return { productId: boot.product_id, ownerToken: boot.owner_token, rtkKey: created.body.key };
    },
    startStack,
    startActors,
    async close() {
      for (const s of stacks.splice(0)) await s.close();
      await (await actors)?.close();
      await actorsShared.close();
      const admin = kafka.admin();
      await admin.connect();
      await admin.deleteTopics({ topics: catalogTopicNames(config.kafkaTopicPrefix) }).catch(() => undefined);
      await admin.disconnect();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
      await db.destroy();
    },
  };
}

async function answerOf<T>(res: Response): Promise<Answer<T>> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, headers: res.headers, body: body as T };
}

/** One management API request; `body` is JSON-encoded unless it is a string (sent as is). */
export async function mgmt<T = ErrorAnswerBody>(
  management: { url: string },
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const res = await fetch(`${management.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return answerOf<T>(res);
}

/** One public edge request under `/{product}/realtime`. */
export async function edge<T = ErrorAnswerBody>(
  running: { url: string },
  productId: string,
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const res = await fetch(`${running.url}/${productId}/realtime${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return answerOf<T>(res);
}

/**
 * A public key of the product for the realtime toolkit, made by the owner through the management
 * API, once the edge of its environment accepts it (change notification or next snapshot).
 */
export async function publicKey(stack: Stack, product: Product, environment: Environment = 'production') {
  const created = await mgmt<{ key: string }>(
    stack.management,
    'POST',
    '/organization/public-keys',
    product.ownerToken,
    {
      name: uniqueName('rt').slice(0, 64),
      scope: { kind: 'toolkit', toolkit: 'realtime' },
      environment,
    },
  );
  if (created.status !== 201)
    throw new Error(`public key: ${created.status} ${JSON.stringify(created.body)}`);
  const key = created.body.key;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = await edge(
      stack.edges[environment],
      product.productId,
      'GET',
      '/channels/x:y/presence/stats',
      key,
    );
    if (probe.status !== 401) return key;
    if (Date.now() > deadline) throw new Error('the edge never accepted the new public key');
    await sleep(50);
  }
}

/** A namespace's policy as the management API takes it (the fields the tests set). */
export type NamespacePolicyBody = Partial<{
  presence: boolean;
  client_events: boolean;
  history_window_seconds: number;
  archive_days: number;
}>;

export async function putNamespace(
  stack: Stack,
  product: Product,
  name: string,
  policy: NamespacePolicyBody,
) {
  const answer = await mgmt(
    stack.management,
    'PUT',
    `/realtime/namespaces/${name}`,
    product.ownerToken,
    policy,
  );
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`namespace ${name}: ${answer.status}`);
}

/** What most files here start from: one base, one stack of it, and one product on that stack. */
export interface RealtimeHttpProduct {
  base: RealtimeHttpBase;
  stack: Stack;
  product: Product;
  /** A public key of the product, accepted by the production edge. */
  key: string;
}

/**
 * A base (createRealtimeHttpBase), a stack of it, a product with a public key, and the product's
 * `namespaces`. On a failure the base is closed before the error is thrown.
 */
export async function startRealtimeHttpProduct(
  label: string,
  namespaces: Record<string, NamespacePolicyBody>,
  opts: { base?: RealtimeHttpBaseOptions; stack?: StackOptions } = {},
): Promise<RealtimeHttpProduct> {
  const base = await createRealtimeHttpBase(label, opts.base);
  try {
    const stack = await base.startStack(opts.stack);
    const product = await base.newProduct(stack.management);
    const key = await publicKey(stack, product);
    for (const [name, policy] of Object.entries(namespaces)) await putNamespace(stack, product, name, policy);
    return { base, stack, product, key };
  } catch (err) {
    await base.close();
    throw err;
  }
}

export interface HistoryEntry {
  id: string;
  offset: number;
  epoch: string;
  data?: unknown;
  ref?: { bucket_key: string; size: number; content_type?: string };
  name?: string;
  published_at: string;
}

export interface HistoryBody {
  data: HistoryEntry[];
  epoch: string;
  top_offset: number;
  recovered: boolean;
}

/** Polls the management API's history until `done` holds. */
export async function waitForHistory(
  stack: Stack,
  token: string,
  channel: string,
  done: (h: HistoryBody) => boolean,
  opts: { query?: string; timeoutMs?: number; environment?: Environment } = {},
): Promise<HistoryBody> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  const query = `${opts.query ?? 'last_n=1000'}${opts.environment ? `&environment=${opts.environment}` : ''}`;
  for (;;) {
    const answer = await mgmt<HistoryBody>(
      stack.management,
      'GET',
      `/realtime/channels/${encodeURIComponent(channel)}/history?${query}`,
      token,
    );
    if (answer.status !== 200) throw new Error(`history: ${answer.status} ${JSON.stringify(answer.body)}`);
    if (done(answer.body)) return answer.body;
    if (Date.now() > deadline)
      throw new Error(`history never got there: ${JSON.stringify(answer.body).slice(0, 500)}`);
    await sleep(50);
  }
}

export function errorOf(answer: Answer<unknown>): ErrorAnswerBody['error'] {
  return ((answer.body as ErrorAnswerBody | null)?.error ?? {}) as ErrorAnswerBody['error'];
}

/** A JSON body of exactly `bytes` bytes: `value` serialized, padded with spaces. */
export function paddedJson(value: unknown, bytes: number): string {
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > bytes) throw new Error(`${text.length} > ${bytes}`);
  return text + ' '.repeat(bytes - Buffer.byteLength(text));
}

/** A string whose JSON serialization (with the quotes) is exactly `bytes` bytes. */
export function jsonStringOfBytes(bytes: number): string {
  return 'x'.repeat(bytes - 2);
}

/** One way in: the public edge with a public key, or the management API with a credential. */
export interface Caller {
  name: string;
  issueToken(body: unknown, headers?: Record<string, string>): Promise<Answer>;
  publish(body: unknown, headers?: Record<string, string>): Promise<Answer>;
  history(channel: string, query: string): Promise<Answer>;
  presence(channel: string): Promise<Answer>;
}

/** The three callers of the realtime table: edge + public key, management + owner, management + rtk_. */
export function callers(
  stack: Stack,
  product: Product,
  key: string,
  environment: Environment = 'production',
) {
  const e = stack.edges[environment];
  const env = environment === 'production' ? {} : { environment };
  const envQuery = environment === 'production' ? '' : `&environment=${environment}`;
  const withEnv = (body: unknown) =>
    typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...body, ...env } : body;
  const viaEdge: Caller = {
    name: `edge (${environment}, public key)`,
    issueToken: (body, headers) => edge(e, product.productId, 'POST', '/tokens/issue', key, body, headers),
    publish: (body, headers) => edge(e, product.productId, 'POST', '/messages', key, body, headers),
    history: (channel, query) =>
      edge(e, product.productId, 'GET', `/channels/${encodeURIComponent(channel)}/history?${query}`, key),
    presence: (channel) =>
      edge(e, product.productId, 'GET', `/channels/${encodeURIComponent(channel)}/presence`, key),
  };
  const viaManagement = (name: string, token: string): Caller => ({
    name: `management (${environment}, ${name})`,
    issueToken: (body, headers) =>
      mgmt(
        stack.management,
        'POST',
        '/realtime/tokens',
        token,
        typeof body === 'string' ? body : withEnv(body),
        headers,
      ),
    publish: (body, headers) =>
      mgmt(
        stack.management,
        'POST',
        '/realtime/messages',
        token,
        typeof body === 'string' ? body : withEnv(body),
        headers,
      ),
    history: (channel, query) =>
      mgmt(
        stack.management,
        'GET',
        `/realtime/channels/${encodeURIComponent(channel)}/history?${query}${envQuery}`,
        token,
      ),
    presence: (channel) =>
      mgmt(
        stack.management,
        'GET',
        `/realtime/channels/${encodeURIComponent(channel)}/presence${envQuery ? `?${envQuery.slice(1)}` : ''}`,
        token,
      ),
  });
  return [
    viaEdge,
    viaManagement('owner token', product.ownerToken),
    viaManagement('rtk_ key', product.rtkKey),
  ];
}
