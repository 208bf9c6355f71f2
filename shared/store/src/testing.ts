// Test helpers of the store: a migrated database of a test's own on the test server, for tests
// whose rows are shared by the whole database (the realtime signing keys: one per environment),
// so they cannot share the suite's.
import { createLogger } from '@lattice/core';
import { createDb, type Db } from './db.ts';
import { migrateLatest } from './migrate.ts';

export interface ThrowawayDatabase {
  db: Db;
  /** Its URL, for processes the test starts. */
  url: string;
  /** Drops it (connections of other processes included). */
  drop(): Promise<void>;
}

/** Creates `name` (letters, digits, _) beside the database of `serverUrl` and migrates it. */
export async function throwawayDatabase(serverUrl: string, name: string): Promise<ThrowawayDatabase> {
  const database = name.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
  const server = createDb({ databaseUrl: serverUrl });
  await server.raw('create database ??', [database]);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const db = createDb({ databaseUrl: url.toString() });
  await migrateLatest(db, createLogger({ name: 'throwaway-database', level: 'silent' }));
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.destroy();
      await server.raw('drop database if exists ?? with (force)', [database]);
      await server.destroy();
    },
  };
}
