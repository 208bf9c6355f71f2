import { newId } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import { areaKeyQueries } from './area-key-queries.ts';
import type { RealtimeKeyRecord, RealtimeKeyRepository } from './realtime-key-repository.ts';

const TABLE = 'realtime_api_keys';
const COLUMNS = ['id', 'product_id', 'name', 'visible', 'created_by', 'created_at'];

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
    ...areaKeyQueries<Row, RealtimeKeyRecord>(db, TABLE, COLUMNS, toRecord),
  };
}
