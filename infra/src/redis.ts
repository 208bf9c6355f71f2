// Redis: reuse the server at config.redisUrl, or start a private redis-server (data under
// infra/.cache) when none answers and the binary is installed.
import { mkdir } from 'node:fs/promises';
import type { LatticeConfig, Logger } from '@lattice/core';
import { Redis } from 'ioredis';
import { formatHostPort, hostPortOfUrl } from './address.ts';
import { decideStart } from './managed-service.ts';
import type { InfraPaths } from './paths.ts';
import { pollUntilReady } from './poll.ts';
import { exitedReason, findExecutable, spawnDetached } from './process.ts';
import { type ManagedService, type RunStateStore, withService } from './run-state.ts';

/** True when PING gets PONG (a server still loading its dataset answers LOADING: not ready). */
export async function redisAnswers(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => undefined); // reported through the rejected connect/ping instead
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** redis-server arguments for a private local instance (pure; unit-tested). */
export function redisServerArgs(opts: {
  host: string;
  port: number;
  dataDir: string;
  password?: string;
}): string[] {
  const args = [
    '--bind',
    opts.host,
    '--port',
    String(opts.port),
    '--dir',
    opts.dataDir,
    '--daemonize',
    'no',
    '--logfile',
    '',
  ];
  // Loopback only, so protected mode would only get in the way of a password-less dev setup.
  args.push('--protected-mode', 'no');
  if (opts.password) args.push('--requirepass', opts.password);
  return args;
}

export interface EnsureRedisOptions {
  config: LatticeConfig;
  paths: InfraPaths;
  store: RunStateStore;
  logger: Logger;
  searchPath?: string;
  readyTimeoutMs?: number;
}

const STANDARD_BIN_DIRS = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin'];

export async function ensureRedis(opts: EnsureRedisOptions): Promise<'reused' | 'started'> {
  const { config, paths, store, logger, readyTimeoutMs = 30_000 } = opts;
  const url = config.redisUrl;
  const address = hostPortOfUrl(url, 6379);
  const where = `Redis at ${formatHostPort(address)}`;
  const decision = await decideStart({
    name: 'redis',
    where,
    address,
    probe: () => redisAnswers(url),
    store,
    logger,
    readyTimeoutMs,
    portInUseProblem: 'the port is in use but does not answer PING',
  });
  if (decision === 'reused') return 'reused';

  const dirs = [...(opts.searchPath ?? '').split(':').filter(Boolean), ...STANDARD_BIN_DIRS];
  const redisServer = await findExecutable('redis-server', dirs.join(':'));
  if (!redisServer) throw new Error(`${where} does not answer and redis-server is not installed`);
  await mkdir(paths.redis.dataDir, { recursive: true });
  const password = decodeURIComponent(new URL(url).password);
  const pid = await spawnDetached({
    command: redisServer,
    args: redisServerArgs({ ...address, dataDir: paths.redis.dataDir, ...(password ? { password } : {}) }),
    cwd: paths.redis.dir,
    logFile: paths.redis.log,
  });
  const service: ManagedService = {
    name: 'redis',
    pid,
    // redis-server rewrites its process title to "redis-server host:port".
    commandMarker: 'redis-server',
    address: formatHostPort(address),
    stopSignal: 'SIGTERM',
    startedAt: new Date().toISOString(),
    logFile: paths.redis.log,
  };
  await store.update((s) => withService(s, service));
  const readyMs = await pollUntilReady({
    what: where,
    probe: () => redisAnswers(url),
    timeoutMs: readyTimeoutMs,
    logger,
    failure: exitedReason(service),
  });
  logger.info({ pid, readyMs, address: service.address }, 'Redis started');
  return 'started';
}
