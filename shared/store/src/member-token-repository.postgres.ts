import { isUuid, newId } from '@lattice/core';
import type { DbExecutor } from './db.ts';
import type { MemberRole } from './member-repository.ts';
import type {
  ActiveMemberToken,
  MemberTokenRecord,
  MemberTokenRepository,
} from './member-token-repository.ts';

/** `last_used_at` is written at most once a minute per token (docs/organization.md). */
const LAST_USED_RESOLUTION_SECONDS = 60;

const HASH = /^[0-9a-f]{64}$/;

interface MemberTokenRow {
  id: string;
  product_id: string;
  member_id: string;
  name: string;
  token_hash: string;
  visible: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

function toRecord(row: MemberTokenRow): MemberTokenRecord {
  return {
    id: row.id,
    productId: row.product_id,
    memberId: row.member_id,
    name: row.name,
    tokenHash: row.token_hash,
    visible: row.visible,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

export function createPostgresMemberTokenRepository(db: DbExecutor): MemberTokenRepository {
  async function findActiveByHashes(tokenHashes: readonly string[]): Promise<ActiveMemberToken[]> {
    const hashes = [...new Set(tokenHashes.filter((h) => HASH.test(h)))];
    if (hashes.length === 0) return [];
    const rows = await db('member_tokens as t')
      .join('members as m', 'm.id', 't.member_id')
      .whereIn('t.token_hash', hashes)
      .whereNull('t.revoked_at')
      .whereNull('m.removed_at')
      .select<Array<MemberTokenRow & { role: MemberRole }>>('t.*', 'm.role');
    return rows.map((row): ActiveMemberToken => ({ ...toRecord(row), role: row.role }));
  }

  return {
    async create(input) {
      const [row] = await db<MemberTokenRow>('member_tokens')
        .insert({
          id: newId(),
          product_id: input.productId,
          member_id: input.memberId,
          name: input.name,
          token_hash: input.tokenHash,
          visible: input.visible,
        })
        .returning('*');
      return toRecord(row!);
    },
    async findActiveByHash(tokenHash) {
      const [found] = await findActiveByHashes([tokenHash]);
      return found;
    },
    findActiveByHashes,
    async listByProduct(productId) {
      if (!isUuid(productId)) return [];
      const rows = await db<MemberTokenRow>('member_tokens')
        .where({ product_id: productId })
        .orderBy('created_at', 'desc');
      return rows.map(toRecord);
    },
    async listByMember(productId, memberId, page) {
      if (!isUuid(productId) || !isUuid(memberId)) return [];
      const q = db<MemberTokenRow>('member_tokens')
        .where({ product_id: productId, member_id: memberId })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit);
      if (page.afterId !== undefined) {
        if (!isUuid(page.afterId)) return [];
        q.andWhereRaw(
          '(created_at, id) < (select created_at, id from member_tokens where id = ? and product_id = ?)',
          [page.afterId, productId],
        );
      }
      return (await q).map(toRecord);
    },
    async get(productId, id) {
      if (!isUuid(productId) || !isUuid(id)) return undefined;
      const row = await db<MemberTokenRow>('member_tokens').where({ id, product_id: productId }).first();
      return row ? toRecord(row) : undefined;
    },
    async revoke(productId, id) {
      if (!isUuid(productId) || !isUuid(id)) return undefined;
      // coalesce: a revoked token keeps its first revocation time.
      const [row] = await db<MemberTokenRow>('member_tokens')
        .where({ id, product_id: productId })
        .update({ revoked_at: db.raw('coalesce(revoked_at, now())') })
        .returning('*');
      return row ? toRecord(row as MemberTokenRow) : undefined;
    },
    async touchLastUsed(id) {
      if (!isUuid(id)) return;
      await db('member_tokens')
        .where({ id })
        .andWhere((q) =>
          q
            .whereNull('last_used_at')
            .orWhereRaw(`last_used_at < now() - interval '${LAST_USED_RESOLUTION_SECONDS} seconds'`),
        )
        .update({ last_used_at: db.fn.now() });
    },
  };
}
