// One running public edge: the key snapshot of its environment (PostgreSQL, refreshed every
// snapshotRefreshMs and early on change notifications), the per-IP limiter on Redis, and the
// HTTP server on the port of config.publicUrls[environment].
import type { AddressInfo } from 'node:net';
import {
  type Clock,
  type Environment,
  type LatticeConfig,
  type Logger,
  portOf,
  systemClock,
} from '@lattice/core';
import { attachClientErrorHandler, type PublicHandlers } from '@lattice/http';
import { createPostgresPublicKeyRepository } from '@lattice/keys';
import { closeRedis, createRedis, keyChangesChannel } from '@lattice/redis';
import type { DbExecutor } from '@lattice/store';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { createEdgeApp } from './app.ts';
import { edgeMetrics } from './edge-metrics.ts';
import { type KeyChangeSubscription, subscribeKeyChanges } from './key-change-subscription.ts';
import { createKeySnapshotHolder } from './key-snapshot-holder.ts';
import type { KeySnapshotHolder } from './key-snapshot-source.ts';
import { createPerIpLimiter } from './per-ip-limit.ts';

export interface StartEdgeOptions {
  config: LatticeConfig;
  environment: Environment;
  db: DbExecutor;
  /**
   * Command connection for the per-IP limit, not closed by close(): the caller owns it. The edge
   * turns ioredis auto-pipelining on for it, which its leased limiter relies on to send one
   * turn's lease requests as one write; give it a connection of its own.
   */
  redis: Redis;
  logger: Logger;
  registry: Registry;
  /** The toolkits' public handlers; routes none serves answer 501 after their checks. */
  toolkits: readonly PublicHandlers[];
  /**
   * Reload early on key change notifications. Default true; false leaves only the periodic
   * refresh (a new key is then refused until the next one).
   */
  notifications?: boolean;
  /** Connection for the notifications. Default: a new one to config.redisUrl, closed by close(). */
  subscriber?: Redis;
  /** Replaces the PostgreSQL-backed snapshot holder. */
  snapshots?: KeySnapshotHolder;
  clock?: Clock;
  /** How long to wait for the first snapshot before listening anyway (503 until it loads). Default 5000. */
  firstLoadWaitMs?: number;
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

export async function startEdge(opts: StartEdgeOptions): Promise<RunningEdge> {
  const { config, environment, logger } = opts;
  const clock = opts.clock ?? systemClock;
  const log = logger.child({ component: 'edge', environment });
  const metrics = edgeMetrics(opts.registry, environment, clock);
  const snapshots =
    opts.snapshots ??
    createKeySnapshotHolder({
      environment,
      keys: createPostgresPublicKeyRepository(opts.db),
      refreshMs: config.snapshotRefreshMs,
      maxAgeMs: config.snapshotMaxAgeMs,
      logger,
      metrics,
      clock,
    });
  const unwatch = metrics.watchSnapshot(() => {
    const s = snapshots.lastLoaded();
    return { size: s ? s.size : null, loadedAtMs: s ? s.loadedAtMs : null };
  });

  // Subscribed before the first load, so no change can fall between the load and the subscription.
  let subscription: KeyChangeSubscription | undefined;
  let ownSubscriber: Redis | undefined;
  if (opts.notifications ?? true) {
    let subscriber = opts.subscriber;
    if (!subscriber) {
      ownSubscriber = createRedis({ url: config.redisUrl, logger, name: `edge-key-changes-${environment}` });
      subscriber = ownSubscriber;
    }
    subscription = subscribeKeyChanges({
      subscriber,
      channel: keyChangesChannel(config.redisKeyPrefix, environment),
      onChange: () => snapshots.requestReload(),
      logger: log,
    });
  }

  await waitAtMost(snapshots.start(), opts.firstLoadWaitMs ?? 5000);

  // Read per command by ioredis, so switching it on here applies from the next command.
  opts.redis.options.enableAutoPipelining = true;
  const app = createEdgeApp({
    environment,
    snapshots,
    limiter: createPerIpLimiter({
      redis: opts.redis,
      requestsPerMinute: config.perIpRequestsPerMinute,
      keyPrefix: config.redisKeyPrefix,
      redisTimeoutMs: config.rateLimitRedisTimeoutMs,
      logger: log,
      metrics,
      clock,
    }),
    toolkits: opts.toolkits,
    logger,
    trustProxy: config.trustProxy,
    revokedGraceMs: config.snapshotRefreshMs,
    metrics,
    clock,
  });

  const stopBackground = async () => {
    snapshots.close();
    unwatch();
    await subscription?.close();
    if (ownSubscriber) await closeRedis(ownSubscriber);
  };

  const server = app.listen(portOf(config.publicUrls[environment]), config.host);
  attachClientErrorHandler(server, log);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.once('listening', resolve);
    });
  } catch (err) {
    await stopBackground();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
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
