import { isUuid } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import {
  type AreaKeyImporter,
  IMPORT_ENVIRONMENT,
  importedScope,
  UNNAMED_REALTIME_IMPORT_NAME,
} from './public-key-import.ts';
import {
  PUBLIC_KEY_COLUMNS,
  type PublicKeyRow,
  toPublicKeyRecord,
} from './public-key-repository.postgres.ts';
import type { ImportSource } from './public-key-repository.ts';

const SOURCES: Record<ImportSource, { table: string; prefix: string; name: string }> = {
  mail: { table: 'mail_api_keys', prefix: 'lmk_', name: 'name' },
  realtime: {
    table: 'realtime_api_keys',
    prefix: 'rtk_',
    name: `coalesce(nullif(name, ''), '${UNNAMED_REALTIME_IMPORT_NAME}')`,
  },
};

/** Public key names are 1 to 64 characters; a longer area key name keeps its first 64. */
const NAME_MAX = 64;

export function createPostgresAreaKeyImporter(db: DbExecutor): AreaKeyImporter {
  return {
    async importKeys(productId, toolkit) {
      if (!isUuid(productId)) return [];
      const source = SOURCES[toolkit];
      // One statement, so concurrent imports cannot both copy a key: the unique index on
      // (product_id, source_key_id) makes the loser skip it (ON CONFLICT DO NOTHING).
      const result = (await db.raw(
        `insert into public_keys
           (id, product_id, environment, name, prefix, key_hash, visible, scope, status,
            created_by, created_at, imported_from, source_key_id)
         select gen_random_uuid(), product_id, ?, left(${source.name}, ${NAME_MAX}), ?, key_hash,
                visible, ?::jsonb, 'active', null, created_at, ?, id
         from ${source.table}
         where product_id = ? and deleted_at is null
         on conflict do nothing
         returning ${PUBLIC_KEY_COLUMNS.join(', ')}`,
        [IMPORT_ENVIRONMENT, source.prefix, JSON.stringify(importedScope(toolkit)), toolkit, productId],
      )) as { rows: PublicKeyRow[] };
      return result.rows
        .map(toPublicKeyRecord)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
    },
  };
}
