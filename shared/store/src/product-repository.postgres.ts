import { isUuid, newId } from '@lattice/core';
import type { DbExecutor } from './db.ts';
import type { ProductRecord, ProductRepository } from './product-repository.ts';

interface ProductRow {
  id: string;
  name: string;
  created_at: Date;
}

function toRecord(row: ProductRow): ProductRecord {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

export function createPostgresProductRepository(db: DbExecutor): ProductRepository {
  return {
    async create({ name }) {
      const [row] = await db<ProductRow>('products').insert({ id: newId(), name }).returning('*');
      return toRecord(row!);
    },
    async findById(id) {
      // Ids are uuid columns: a malformed id would be a SQL error, so it is simply not found.
      if (!isUuid(id)) return undefined;
      const row = await db<ProductRow>('products').where({ id }).first();
      return row ? toRecord(row) : undefined;
    },
  };
}
