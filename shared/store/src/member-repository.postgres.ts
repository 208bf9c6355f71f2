import { isUuid, newId } from '@lattice/core';
import type { DbExecutor } from './db.ts';
import type { MemberRecord, MemberRepository, MemberRole } from './member-repository.ts';

interface MemberRow {
  id: string;
  product_id: string;
  name: string;
  role: MemberRole;
  created_at: Date;
}

function toRecord(row: MemberRow): MemberRecord {
  return { id: row.id, productId: row.product_id, name: row.name, role: row.role, createdAt: row.created_at };
}

export function createPostgresMemberRepository(db: DbExecutor): MemberRepository {
  return {
    async create({ productId, name, role }) {
      const [row] = await db<MemberRow>('members')
        .insert({ id: newId(), product_id: productId, name, role })
        .returning('*');
      return toRecord(row!);
    },
    async findById(productId, id) {
      if (!isUuid(productId) || !isUuid(id)) return undefined;
      const row = await db<MemberRow>('members').where({ id, product_id: productId }).first();
      return row ? toRecord(row) : undefined;
    },
    async listByProduct(productId) {
      if (!isUuid(productId)) return [];
      const rows = await db<MemberRow>('members').where({ product_id: productId }).orderBy('created_at');
      return rows.map(toRecord);
    },
  };
}
