// PostgreSQL: reuse the server at config.databaseUrl, or start a private one (data under
// infra/.cache) when none answers and the server binaries are installed. Then make sure the
// databases Lattice needs exist.
import { execFile } from 'node:child_process';
import { access, chown, mkdir, readFile } from 'node:fs/promises';
import type { LatticeConfig, Logger } from '@lattice/core';
import pg from 'pg';
import { formatHostPort, hostPortOfUrl } from './address.ts';
import { decideStart } from './managed-service.ts';
import type { InfraPaths } from './paths.ts';
import { pollUntilReady } from './poll.ts';
import { exitedReason, findExecutable, postgresBinDirs, spawnDetached } from './process.ts';
import { type ManagedService, type RunStateStore, withService } from './run-state.ts';

/** The same server, but the maintenance database: the target may not exist yet. */
export function maintenanceUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

/** The URL of another database on the same server. */
export function databaseUrlFor(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

export function databaseNameOf(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error(`no database name in ${new URL(url).origin}`);
  return name;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function withClient<T>(url: string, timeoutMs: number, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined); // a dropped connection surfaces through the query instead
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** True when the server behind url accepts a query (on its maintenance database). */
export async function postgresAnswers(url: string, timeoutMs = 2000): Promise<boolean> {
  try {
    await withClient(maintenanceUrl(url), timeoutMs, (c) => c.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates the database named in url unless it exists; true when this call created it.
 * Concurrent callers are fine: losing the race to create it counts as "exists".
 */
export async function ensureDatabase(url: string, opts: { logger?: Logger } = {}): Promise<boolean> {
  const name = databaseNameOf(url);
  return withClient(maintenanceUrl(url), 5000, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    } catch (err) {
      // 42P04 duplicate_database; 23505 when both inserts reach pg_database at the same time.
      const code = (err as { code?: string }).code;
      if (code === '42P04' || code === '23505') return false;
      throw err;
    }
    opts.logger?.info({ database: name }, 'database created');
    return true;
  });
}

/** postgres refuses to run as root; run it as the distribution's postgres user instead. */
async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  const line = passwd.split('\n').find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (!uid || !gid) throw new Error('running as root and there is no "postgres" user to run PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}

function run(command: string, args: string[], runAs?: { uid: number; gid: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...(runAs ?? {}), cwd: '/' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} failed: ${`${stdout}${stderr}`.trim() || err.message}`));
      else resolve();
    });
  });
}

export interface EnsurePostgresOptions {
  config: LatticeConfig;
  paths: InfraPaths;
  store: RunStateStore;
  logger: Logger;
  /** Where to look for initdb/postgres before the Debian locations; e.g. the caller's PATH. */
  searchPath?: string;
  readyTimeoutMs?: number;
}

const STANDARD_BIN_DIRS = ['/usr/local/bin', '/usr/bin', '/bin'];

export async function ensurePostgres(opts: EnsurePostgresOptions): Promise<'reused' | 'started'> {
  const { config, paths, store, logger, readyTimeoutMs = 60_000 } = opts;
  const url = config.databaseUrl;
  const address = hostPortOfUrl(url, 5432);
  const where = `PostgreSQL at ${formatHostPort(address)}`;
  const decision = await decideStart({
    name: 'postgres',
    where,
    address,
    probe: () => postgresAnswers(url),
    store,
    logger,
    readyTimeoutMs,
    portInUseProblem: `the port is in use but does not answer as PostgreSQL with ${new URL(url).username || 'the default'} user`,
  });
  if (decision === 'reused') return 'reused';

  const dirs = [
    ...(opts.searchPath ?? '').split(':').filter(Boolean),
    ...STANDARD_BIN_DIRS,
    ...(await postgresBinDirs()),
  ];
  const initdb = await findExecutable('initdb', dirs.join(':'));
  const postgres = await findExecutable('postgres', dirs.join(':'));
  if (!initdb || !postgres) {
    throw new Error(
      `${where} does not answer and no PostgreSQL server binaries (initdb, postgres) are installed`,
    );
  }
  const runAs = await postgresUser();
  const { dataDir, log } = paths.postgres;
  // The parent stays world-traversable so the postgres user can reach its 0700 data dir.
  await mkdir(paths.postgres.dir, { recursive: true });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (runAs) await chown(dataDir, runAs.uid, runAs.gid);

  const initialised = await access(`${dataDir}/PG_VERSION`).then(
    () => true,
    () => false,
  );
  if (!initialised) {
    const user = decodeURIComponent(new URL(url).username) || 'postgres';
    logger.info({ dataDir, user }, 'initialising a local PostgreSQL cluster');
    await run(initdb, ['-D', dataDir, '-U', user, '--auth=trust', '-E', 'UTF8', '--locale=C'], runAs);
  }
  const pid = await spawnDetached({
    command: postgres,
    // TCP only: a unix socket would collide with the system server's /var/run/postgresql.
    args: [
      '-D',
      dataDir,
      '-p',
      String(address.port),
      '-c',
      `listen_addresses=${address.host}`,
      '-c',
      'unix_socket_directories=',
    ],
    cwd: paths.postgres.dir,
    logFile: log,
    ...(runAs ? { runAs } : {}),
  });
  const service: ManagedService = {
    name: 'postgres',
    pid,
    commandMarker: dataDir,
    address: formatHostPort(address),
    stopSignal: 'SIGINT',
    startedAt: new Date().toISOString(),
    logFile: log,
  };
  await store.update((s) => withService(s, service));
  const readyMs = await pollUntilReady({
    what: where,
    probe: () => postgresAnswers(url),
    timeoutMs: readyTimeoutMs,
    logger,
    failure: exitedReason(service),
  });
  logger.info({ pid, readyMs, address: service.address }, 'PostgreSQL started');
  return 'started';
}
