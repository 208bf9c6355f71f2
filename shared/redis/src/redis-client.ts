// One way to open a Redis connection, tuned for request paths that must fail fast: a command
// issued while Redis is down is given up after one reconnect attempt instead of waiting in the
// offline queue forever, reconnects back off to a bounded delay and never stop, and a long
// outage produces two log lines (lost, restored) instead of one per reconnect attempt.
import { backoffDelayMs, type Clock, errorMessage, type Logger, systemClock } from '@lattice/core';
import { Redis } from 'ioredis';

export interface CreateRedisOptions {
  /** `redis://[user:password@]host:port[/db]`; never logged, it may carry a password. */
  url: string;
  logger: Logger;
  /** Role of the connection (`edge-limits`); shown in logs and as CLIENT SETNAME. */
  name: string;
  /** Commands fail after this many reconnect attempts while queued offline. Default 1. */
  maxRetriesPerRequest?: number;
  /** Default 2000. */
  connectTimeoutMs?: number;
  /** Reject a command that gets no reply in time (a hung server); off by default. */
  commandTimeoutMs?: number;
  /** Reconnect delays: capped exponential with jitter. Default 100 ms doubling to 2000 ms. */
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
  /** Do not connect until the first command or `connect()`. Default false. */
  lazyConnect?: boolean;
  clock?: Clock;
}

export function createRedis(opts: CreateRedisOptions): Redis {
  const log = opts.logger.child({ redis: opts.name });
  const clock = opts.clock ?? systemClock;
  const backoff = {
    initialMs: opts.reconnectInitialMs ?? 100,
    maxMs: opts.reconnectMaxMs ?? 2000,
    // Spread reconnects so a fleet of edge nodes does not stampede a recovering Redis.
    jitterRatio: 0.2,
  };

  const client = new Redis(opts.url, {
    // CLIENT SETNAME rejects spaces; the name is only a label.
    connectionName: opts.name.replace(/\s+/g, '-'),
    maxRetriesPerRequest: opts.maxRetriesPerRequest ?? 1,
    connectTimeout: opts.connectTimeoutMs ?? 2000,
    ...(opts.commandTimeoutMs === undefined ? {} : { commandTimeout: opts.commandTimeoutMs }),
    lazyConnect: opts.lazyConnect ?? false,
    // Never give up: an edge node outlives Redis outages and must pick Redis up again.
    retryStrategy: (attempt) => backoffDelayMs(attempt, backoff),
    // After a failover the old primary answers READONLY; reconnecting reaches the new one.
    reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 2 : false),
  });

  let outageStartMs: number | null = null;
  let failedAttempts = 0;
  // Without an 'error' listener ioredis prints every failed attempt to stderr.
  client.on('error', (err: Error) => {
    failedAttempts += 1;
    if (outageStartMs !== null) return;
    outageStartMs = clock.nowMs();
    log.error({ err: errorMessage(err) }, 'redis connection failed; reconnecting with backoff');
  });
  client.on('ready', () => {
    if (outageStartMs === null) {
      log.debug('redis connection ready');
      return;
    }
    log.info({ outageMs: clock.nowMs() - outageStartMs, failedAttempts }, 'redis connection restored');
    outageStartMs = null;
    failedAttempts = 0;
  });
  return client;
}

/**
 * Closes gracefully (QUIT lets in-flight replies arrive) when connected, otherwise drops the
 * connection at once: QUIT on a reconnecting client would wait for a server that may not return.
 * Resolves once the client has ended, or after timeoutMs with the socket forcibly dropped.
 */
export async function closeRedis(client: Redis, timeoutMs = 2000): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'reconnecting') {
    // Between attempts there is no socket, so ioredis never emits 'end': cancelling the pending
    // reconnect is all there is to do.
    client.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<'ended'>((resolve) => client.once('end', () => resolve('ended')));
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  if (client.status === 'ready') client.quit().catch(() => client.disconnect());
  else client.disconnect();
  try {
    if ((await Promise.race([ended, timedOut])) === 'timeout') client.disconnect();
  } finally {
    clearTimeout(timer);
  }
}
