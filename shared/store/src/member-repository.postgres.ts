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

const COLUMNS = ['id', 'product_id', 'name', 'role', 'created_at'] as const;

function toRecord(row: MemberRow): MemberRecord {
  return { id: row.id, productId: row.product_id, name: row.name, role: row.role, createdAt: row.created_at };
}

export function createPostgresMemberRepository(db: DbExecutor): MemberRepository {
  const current = (productId: string) =>
    db<MemberRow>('members').where({ product_id: productId }).whereNull('removed_at');

  return {
    async create({ productId, name, role }) {
      const [row] = await db<MemberRow>('members')
        .insert({ id: newId(), product_id: productId, name, role })
        .returning(COLUMNS);
      return toRecord(row as MemberRow);
    },
    async findById(productId, id) {
      if (!isUuid(productId) || !isUuid(id)) return undefined;
      const row = (await current(productId).andWhere({ id }).first(COLUMNS)) as unknown as
        | MemberRow
        | undefined;
      return row ? toRecord(row) : undefined;
    },
    async list(productId, page) {
      if (!isUuid(productId)) return [];
      const q = current(productId)
        .select(COLUMNS)
        .orderBy([
          { column: 'created_at', order: 'asc' },
          { column: 'id', order: 'asc' },
        ])
        .limit(page.limit);
      if (page.afterId !== undefined) {
        if (!isUuid(page.afterId)) return [];
        q.andWhereRaw(
          '(created_at, id) > (select created_at, id from members where id = ? and product_id = ?)',
          [page.afterId, productId],
        );
      }
      return ((await q) as unknown as MemberRow[]).map(toRecord);
    },
    async lockOwners(productId) {
      if (!isUuid(productId)) return [];
      const rows = await current(productId).andWhere({ role: 'owner' }).select('id').forUpdate();
      return rows.map((r) => r.id);
    },
    async updateRole(productId, id, role) {
      if (!isUuid(productId) || !isUuid(id)) return undefined;
      const [row] = await current(productId).andWhere({ id }).update({ role }).returning(COLUMNS);
      return row ? toRecord(row as MemberRow) : undefined;
    },
    async remove(productId, id) {
      if (!isUuid(productId) || !isUuid(id)) return false;
      // Both or neither (a savepoint when the caller already holds a transaction).
      return db.transaction(async (trx) => {
        const removed = await trx('members')
          .where({ product_id: productId, id })
          .whereNull('removed_at')
          .update({ removed_at: trx.fn.now() });
        if (removed === 0) return false;
        await trx('member_tokens')
          .where({ product_id: productId, member_id: id })
          .whereNull('revoked_at')
          .update({ revoked_at: trx.fn.now() });
        return true;
      });
    },
  };
}
