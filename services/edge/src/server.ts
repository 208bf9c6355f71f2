// One running public edge: the key snapshot of its environment (PostgreSQL, refreshed every
// snapshotRefreshMs and early on change notifications), the per-IP limiter on Redis, and the
// HTTP server on the port of config.publicUrls[environment]. Started through the edge role
// (role.ts), which gives it its connections.
import type { AddressInfo } from 'node:net';
import {
  type Clock,
  type Environment,
  type HttpTimeouts,
  type LatticeConfig,
  type Logger,
  portOf,
  type Scheduler,
  systemScheduler,
} from '@lattice/core';
import { createHttpServer, type PublicHandlers } from '@lattice/http';
import { createPostgresPublicKeyRepository } from '@lattice/keys';
import { keyChangesChannel } from '@lattice/redis';
import type { DbExecutor } from '@lattice/store';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { createEdgeApp } from './app.ts';
import { edgeMetrics } from './edge-metrics.ts';
import { type KeyChangeSubscription, subscribeKeyChanges } from './key-change-subscription.ts';
import { createKeySnapshotHolder } from './key-snapshot-holder.ts';
import type { KeySnapshotHolder } from './key-snapshot-source.ts';
import { createPerIpLimiter } from './per-ip-limit.ts';

/** The configuration one edge reads (edgeSettingsOf); tests change fields of it. */
export interface EdgeSettings {
  environment: Environment;
  host: string;
  /** The port of config.publicUrls[environment]; 0 picks a free one (tests). */
  port: number;
  redisKeyPrefix: string;
  snapshotRefreshMs: number;
  snapshotMaxAgeMs: number;
  perIpRequestsPerMinute: number;
  rateLimitRedisTimeoutMs: number;
  trustProxy: string;
  /**
   * Reload early on key change notifications. False leaves only the periodic refresh (a new key
   * is then refused until the next one).
   */
  keyChangeNotifications: boolean;
  /** How long to wait for the first snapshot before listening anyway (503 until it loads). */
  firstLoadWaitMs: number;
  /** HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS: slow requests are cut (http-server.ts). */
  httpTimeouts: HttpTimeouts;
}

export function edgeSettingsOf(config: LatticeConfig, environment: Environment): EdgeSettings {
  return {
    environment,
    host: config.host,
    port: portOf(config.publicUrls[environment]),
    redisKeyPrefix: config.redisKeyPrefix,
    snapshotRefreshMs: config.snapshotRefreshMs,
    snapshotMaxAgeMs: config.snapshotMaxAgeMs,
    perIpRequestsPerMinute: config.perIpRequestsPerMinute,
    rateLimitRedisTimeoutMs: config.rateLimitRedisTimeoutMs,
    trustProxy: config.trustProxy,
    keyChangeNotifications: true,
    firstLoadWaitMs: 5000,
    httpTimeouts: config.httpTimeouts,
  };
}

export interface EdgeDeps {
  db: DbExecutor;
  /**
   * Command connection for the per-IP limit, not closed by close(): the caller owns it. The edge
   * turns ioredis auto-pipelining on for it, which its leased limiter relies on to send one
   * turn's lease requests as one write; give it a connection of its own.
   */
  redis: Redis;
  /** A connection of its own for the key change notifications; null when they are off. */
  subscriber: Redis | null;
  logger: Logger;
  registry: Registry;
  /** The toolkits' public handlers; routes none serves answer 501 after their checks. */
  toolkits: readonly PublicHandlers[];
  clock: Clock;
  /**
   * Runs the key snapshot's timers (periodic refresh, retry, notification debounce, max-age
   * expiry). Default systemScheduler; tests drive the refresh with a ManualScheduler.
   */
  scheduler?: Scheduler;
}

export interface RunningEdge {
  environment: Environment;
  url: string;
  port: number;
  snapshots: KeySnapshotHolder;
  close(): Promise<void>;
}

function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([promise.then(() => {}), timeout]).finally(() => clearTimeout(timer));
}

export async function startEdge(settings: EdgeSettings, deps: EdgeDeps): Promise<RunningEdge> {
  const { environment } = settings;
  const { logger, clock } = deps;
  const log = logger.child({ component: 'edge', environment });
  const metrics = edgeMetrics(deps.registry, environment, clock);
  const snapshots = createKeySnapshotHolder({
    environment,
    keys: createPostgresPublicKeyRepository(deps.db),
    refreshMs: settings.snapshotRefreshMs,
    maxAgeMs: settings.snapshotMaxAgeMs,
    logger,
    metrics,
    clock,
    scheduler: deps.scheduler ?? systemScheduler,
  });
  const unwatch = metrics.watchSnapshot(() => {
    const s = snapshots.lastLoaded();
    return {
      size: s ? s.size : null,
      loadedAtMs: s ? s.loadedAtMs : null,
      maxAgeMs: settings.snapshotMaxAgeMs,
    };
  });

  // Subscribed before the first load, so no change can fall between the load and the subscription.
  let subscription: KeyChangeSubscription | undefined;
  if (settings.keyChangeNotifications && deps.subscriber) {
    subscription = subscribeKeyChanges({
      subscriber: deps.subscriber,
      channel: keyChangesChannel(settings.redisKeyPrefix, environment),
      onChange: () => snapshots.requestReload(),
      logger: log,
    });
  }

  const stopBackground = async () => {
    snapshots.close();
    unwatch();
    await subscription?.close();
  };

  let app: ReturnType<typeof createEdgeApp>;
  try {
    await waitAtMost(snapshots.start(), settings.firstLoadWaitMs);

    // Read per command by ioredis, so switching it on here applies from the next command.
    deps.redis.options.enableAutoPipelining = true;
    app = createEdgeApp({
      environment,
      snapshots,
      limiter: createPerIpLimiter({
        redis: deps.redis,
        requestsPerMinute: settings.perIpRequestsPerMinute,
        keyPrefix: settings.redisKeyPrefix,
        redisTimeoutMs: settings.rateLimitRedisTimeoutMs,
        logger: log,
        metrics,
        clock,
      }),
      toolkits: deps.toolkits,
      logger,
      trustProxy: settings.trustProxy,
      revokedGraceMs: settings.snapshotRefreshMs,
      metrics,
      clock,
    });
  } catch (err) {
    // A failed start (a handler naming no route, a load that threw) leaves no timer or listener.
    await stopBackground();
    throw err;
  }

  const server = createHttpServer(app, settings.httpTimeouts, log);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.once('listening', resolve);
      server.listen(settings.port, settings.host);
    });
  } catch (err) {
    await stopBackground();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${settings.host}:${port}`;
  log.info({ url, keys: snapshots.current()?.size ?? null }, 'public edge listening');
  return {
    environment,
    url,
    port,
    snapshots,
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeIdleConnections();
      });
      await stopBackground();
    },
  };
}
