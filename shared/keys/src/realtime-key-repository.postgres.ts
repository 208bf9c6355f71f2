import { isUuid, newId } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import { applyKeyPage } from './key-page.ts';
import type {
  ActiveRealtimeKey,
  RealtimeKeyRecord,
  RealtimeKeyRepository,
} from './realtime-key-repository.ts';

const TABLE = 'realtime_api_keys';
const COLUMNS = ['id', 'product_id', 'name', 'visible', 'created_by', 'created_at'];
const HASH_RE = /^[0-9a-f]{64}$/;

interface Row {
  id: string;
  product_id: string;
  name: string | null;
  visible: string;
  created_by: string | null;
  created_at: Date;
}

function toRecord(r: Row): RealtimeKeyRecord {
  return {
    id: r.id,
    productId: r.product_id,
    name: r.name,
    visible: r.visible,
    createdBy: r.created_by,
    createdAt: r.created_at,
  };
}

export function createPostgresRealtimeKeyRepository(db: DbExecutor): RealtimeKeyRepository {
  return {
    async create(key) {
      const [row] = await db(TABLE)
        .insert({
          id: newId(),
          product_id: key.productId,
          name: key.name,
          key_hash: key.hash,
          visible: key.visible,
          created_by: key.createdBy,
        })
        .returning(COLUMNS);
      return toRecord(row as Row);
    },
    async list(productId, page) {
      if (!isUuid(productId)) return [];
      const q = db(TABLE).select(COLUMNS).where({ product_id: productId }).whereNull('deleted_at');
      if (!applyKeyPage(q, TABLE, productId, page)) return [];
      return ((await q) as Row[]).map(toRecord);
    },
    async findActiveByHash(hash): Promise<ActiveRealtimeKey | undefined> {
      if (!HASH_RE.test(hash)) return undefined;
      const row = (await db(TABLE)
        .select([...COLUMNS, 'key_hash'])
        .where({ key_hash: hash })
        .whereNull('deleted_at')
        .first()) as (Row & { key_hash: string }) | undefined;
      return row ? { ...toRecord(row), hash: row.key_hash } : undefined;
    },
    async delete(productId, id) {
      if (!isUuid(productId) || !isUuid(id)) return false;
      const count = await db(TABLE)
        .where({ product_id: productId, id })
        .whereNull('deleted_at')
        .update({ deleted_at: db.fn.now() });
      return count > 0;
    },
  };
}
