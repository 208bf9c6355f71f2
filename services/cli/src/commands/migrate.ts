import { createDb, migrateLatest } from '@lattice/store';
import type { CommandContext } from '../context.ts';

export async function runMigrate({ config, logger }: CommandContext): Promise<number> {
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  try {
    const { applied } = await migrateLatest(db, logger);
    console.log(applied.length === 0 ? 'database is up to date' : `applied ${applied.length} migration(s)`);
    return 0;
  } finally {
    await db.destroy();
  }
}
