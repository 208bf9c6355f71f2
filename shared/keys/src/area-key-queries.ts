// What the mail (lmk_) and realtime (rtk_) key tables answer alike: listing a product's live
// keys, finding a live key by hash for authentication, and soft deletion.
import { isUuid } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import { applyKeyPage, type KeyPage } from './key-page.ts';

const HASH_RE = /^[0-9a-f]{64}$/;

export interface AreaKeyQueries<Rec> {
  list(productId: string, page: KeyPage): Promise<Rec[]>;
  findActiveByHash(hash: string): Promise<(Rec & { hash: string }) | undefined>;
  delete(productId: string, id: string): Promise<boolean>;
}

export function areaKeyQueries<Row, Rec>(
  db: DbExecutor,
  table: string,
  columns: readonly string[],
  toRecord: (row: Row) => Rec,
): AreaKeyQueries<Rec> {
  return {
    async list(productId, page) {
      if (!isUuid(productId)) return [];
      const q = db(table).select(columns).where({ product_id: productId }).whereNull('deleted_at');
      if (!applyKeyPage(q, table, productId, page)) return [];
      return ((await q) as Row[]).map(toRecord);
    },
    async findActiveByHash(hash) {
      if (!HASH_RE.test(hash)) return undefined;
      const row = (await db(table)
        .select([...columns, 'key_hash'])
        .where({ key_hash: hash })
        .whereNull('deleted_at')
        .first()) as (Row & { key_hash: string }) | undefined;
      return row ? { ...toRecord(row), hash: row.key_hash } : undefined;
    },
    async delete(productId, id) {
      if (!isUuid(productId) || !isUuid(id)) return false;
      const count = await db(table)
        .where({ product_id: productId, id })
        .whereNull('deleted_at')
        .update({ deleted_at: db.fn.now() });
      return count > 0;
    },
  };
}
