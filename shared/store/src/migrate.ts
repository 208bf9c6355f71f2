// Schema migrations: files in shared/store/migrations, applied in name order by knex's migrator.
// A custom migration source lets the .ts files load under tsx (and Node's type stripping) and
// logs one progress line per migration as it is applied.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from '@lattice/core';
import type { Knex } from 'knex';
import type { Db } from './db.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

// Any fixed 32-bit number; names the advisory lock every Lattice process migrates under.
const MIGRATION_LOCK_KEY = 0x1a771ce;
const LOCK_WAIT_MS = 120_000;

interface MigrationFile {
  name: string;
  file: string;
}

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

export function createMigrationSource(
  logger: Logger,
  dir = MIGRATIONS_DIR,
): Knex.MigrationSource<MigrationFile> {
  return {
    async getMigrations() {
      const names = (await readdir(dir))
        .filter((f) => /\.(ts|js)$/.test(f) && !/\.(d|test)\.(ts|js)$/.test(f))
        .sort();
      return names.map((f) => ({ name: f.replace(/\.(ts|js)$/, ''), file: path.join(dir, f) }));
    },
    getMigrationName(m) {
      // Stored without extension so a later build to .js does not look like new migrations.
      return m.name;
    },
    async getMigration(m) {
      const mod = (await import(pathToFileURL(m.file).href)) as MigrationModule;
      return {
        async up(knex: Knex) {
          const startMs = Date.now();
          logger.info({ migration: m.name }, `migration ${m.name}: applying`);
          await mod.up(knex);
          logger.info(
            { migration: m.name, durationMs: Date.now() - startMs },
            `migration ${m.name}: applied`,
          );
        },
        async down(knex: Knex) {
          if (!mod.down) throw new Error(`migration ${m.name} has no down step`);
          logger.info({ migration: m.name }, `migration ${m.name}: reverting`);
          await mod.down(knex);
        },
      };
    },
  };
}

/**
 * Brings the schema up to date. Safe when several processes start at once: knex's own lock
 * table has a first-run race (two processes can each create it and insert a lock row, after
 * which knex refuses to migrate at all), so every caller first queues on a PostgreSQL advisory
 * lock; knex's lock then never sees contention. The advisory lock is transaction-scoped, so a
 * crashed process cannot leave it held.
 */
export async function migrateLatest(db: Db, logger: Logger): Promise<{ applied: string[] }> {
  const config: Knex.MigratorConfig = { migrationSource: createMigrationSource(logger) };
  return db.transaction(async (trx) => {
    await trx.raw(`set local lock_timeout = ${LOCK_WAIT_MS}`);
    await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
    let result: [number, string[]];
    try {
      result = await db.migrate.latest(config);
    } catch (err) {
      if (!(err instanceof Error) || err.name !== 'MigrationLocked') throw err;
      // We hold the advisory lock, so no Lattice process is migrating: the knex lock is stale
      // (a process died mid-migration). Free it and try once more.
      logger.warn('knex migration lock was left set by a dead process; freeing it');
      await db.migrate.forceFreeMigrationsLock(config);
      result = await db.migrate.latest(config);
    }
    const [batch, applied] = result;
    logger.info(
      { batch, applied: applied.length },
      applied.length === 0 ? 'migrations: schema up to date' : `migrations: ${applied.length} applied`,
    );
    return { applied };
  });
}
