// The chaos run's own backing services: a PostgreSQL (initdb in a temporary folder), a Redis and a
// single Kafka broker (KRaft, the jars of infra/.cache linked as the broker-loss test links them),
// each on free ports of its own, started and stopped through @lattice/infra with the temporary
// folder as its cache. A stop therefore only ever signals a process this run started: the shared
// PostgreSQL on 5432 and Redis on 6379 are never addressed.
import { existsSync } from 'node:fs';
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LatticeConfig, type Logger, loadConfig } from '@lattice/core';
import { ensureInfra, ensureKafkaLibs, infraPaths, stopInfra } from '@lattice/infra';
import { freePort } from '../support/lattice-process.ts';

export type BackingName = 'redis' | 'postgres' | 'kafka';
export const BACKING_NAMES: readonly BackingName[] = ['redis', 'postgres', 'kafka'];

export interface Backing {
  /** The temporary folder: data, logs and run state of all three. */
  dir: string;
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string[];
  /**
   * Stops one as an operator's stop does (PostgreSQL: SIGINT, its fast shutdown; Redis and the
   * broker: SIGTERM, after which Redis has saved its keys and the broker shut down cleanly);
   * resolves once its process has exited.
   */
  stop(name: BackingName): Promise<void>;
  /** Starts whatever is stopped, on the same ports and data; resolves once it answers. */
  start(): Promise<void>;
  /** Stops all three, copies their logs into `logDir` when given, and removes the folder. */
  close(logDir?: string): Promise<void>;
}

const DIR_PREFIX = 'lattice-chaos-';
const OWNER_FILE = 'owner.pid';

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Folders of earlier runs whose process is gone (killed with SIGKILL, so its cleanup never ran):
 * what they started is stopped and the folder removed. Only processes recorded in such a folder's
 * own run state are signalled.
 */
export async function sweepStaleRuns(logger: Logger, log: (line: string) => void): Promise<void> {
  for (const name of await readdir(tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    const owner = Number((await readFile(join(dir, OWNER_FILE), 'utf8').catch(() => '')).trim());
    if (owner > 0 && alive(owner)) continue;
    // No owner yet: a run that is just starting, unless the folder is old.
    const info = await stat(dir).catch(() => null);
    if (!info || (!(owner > 0) && Date.now() - info.mtimeMs < 10 * 60_000)) continue;
    log(`an earlier run's folder ${dir} outlived its process: stopping what it started`);
    await stopInfra({ logger, cacheDir: dir, timeoutMs: 15_000 }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

export async function startBacking(opts: {
  logger: Logger;
  /** Searched for redis-server, initdb and postgres (the caller's PATH). */
  searchPath: string;
  partitions: number;
}): Promise<Backing> {
  const { logger } = opts;
  const dir = await mkdtemp(join(tmpdir(), DIR_PREFIX));
  // PostgreSQL runs as the postgres user when this runs as root: it must reach its data folder.
  await chmod(dir, 0o755);
  await writeFile(join(dir, OWNER_FILE), `${process.pid}\n`);
  const close = async (logDir?: string) => {
    await stopInfra({ logger, cacheDir: dir, timeoutMs: 15_000 }).catch(() => undefined);
    if (logDir) await keepLogs(dir, logDir).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // The suite's jars (fetched once into infra/.cache by Maven), linked rather than copied.
    const libsDir = infraPaths().kafka.libsDir;
    await ensureKafkaLibs({ libsDir, logger });
    await mkdir(infraPaths(dir).kafka.dir, { recursive: true });
    await symlink(libsDir, infraPaths(dir).kafka.libsDir);

    // A single broker's controller listens on its port + 1.
    let kafkaPort = await freePort();
    while (!(await canListen(kafkaPort + 1))) kafkaPort = await freePort();
    const redisPort = await freePort();
    const postgresPort = await freePort();
    const config: LatticeConfig = loadConfig({
      KAFKA_BROKERS: `127.0.0.1:${kafkaPort}`,
      KAFKA_PARTITIONS: String(opts.partitions),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${postgresPort}/lattice_chaos`,
    });
    const start = async () => {
      await ensureInfra({ config, logger, cacheDir: dir, searchPath: opts.searchPath });
    };
    await start();
    return {
      dir,
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      kafkaBrokers: config.kafkaBrokers,
      async stop(name) {
        const { stopped } = await stopInfra({ logger, cacheDir: dir, only: [name], timeoutMs: 30_000 });
        if (!stopped.includes(name)) throw new Error(`${name} was not running`);
      },
      start,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The services' own logs (the broker's, PostgreSQL's, Redis's), kept beside the roles' log. */
async function keepLogs(dir: string, logDir: string): Promise<void> {
  const paths = infraPaths(dir);
  await mkdir(logDir, { recursive: true });
  const files: Array<[string, string]> = [
    [paths.postgres.log, 'postgres.log'],
    [paths.redis.log, 'redis.log'],
    [paths.kafka.serverLog, 'kafka-server.log'],
    [paths.kafka.stdoutLog, 'kafka-stdout.log'],
  ];
  for (const [from, to] of files) if (existsSync(from)) await copyFile(from, join(logDir, to));
}
