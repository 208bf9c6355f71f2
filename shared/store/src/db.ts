// One knex instance per process, created by the composition root and passed to every repository.
import type { Logger } from '@lattice/core';
import knex, { type Knex } from 'knex';

export type Db = Knex;
/** Either the pool or an open transaction; repositories accept both so callers choose the scope. */
export type DbExecutor = Knex | Knex.Transaction;

export interface DbOptions {
  databaseUrl: string;
  /** Pool size cap; at least 2 because `migrateLatest` holds one connection for its lock. */
  poolMax?: number;
  /** Receives knex's own warnings, which otherwise go straight to the console. */
  logger?: Logger;
}

export function createDb(opts: DbOptions): Db {
  const poolMax = opts.poolMax ?? 10;
  if (!Number.isInteger(poolMax) || poolMax < 2) {
    throw new Error(`poolMax must be an integer of at least 2, got ${poolMax}`);
  }
  return knex({
    client: 'pg',
    connection: opts.databaseUrl,
    // min 0 lets idle processes (tests, CLI) hold no connection and exit promptly.
    pool: { min: 0, max: poolMax },
    // An error's message names the statement, never its values: bound values hold what clients
    // sent (whole email bodies, addresses), and errors reach logs.
    compileSqlOnError: false,
    ...(opts.logger ? { log: knexLog(opts.logger) } : {}),
  });
}

function knexLog(logger: Logger): Knex.Config['log'] {
  const child = logger.child({ component: 'knex' });
  return {
    warn: (message: unknown) => child.warn({ detail: message }, 'knex warning'),
    error: (message: unknown) => child.error({ detail: message }, 'knex error'),
    deprecate: (method: string, alternative: string) =>
      child.warn({ method, alternative }, 'knex deprecation'),
    debug: (message: unknown) => child.debug({ detail: message }, 'knex debug'),
  };
}
