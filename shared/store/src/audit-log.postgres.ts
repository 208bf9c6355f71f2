import { isUuid, newId } from '@lattice/core';
import type { AuditActorKind, AuditEntry, AuditLog } from './audit-log.ts';
import type { DbExecutor } from './db.ts';

interface AuditRow {
  id: string;
  product_id: string;
  at: Date;
  actor_kind: AuditActorKind;
  actor_member_id: string | null;
  actor_credential_id: string | null;
  operation: string;
  target_type: string;
  target_id: string | null;
  request_id: string | null;
  changes: string[];
}

const COLUMNS = [
  'id',
  'product_id',
  'at',
  'actor_kind',
  'actor_member_id',
  'actor_credential_id',
  'operation',
  'target_type',
  'target_id',
  'request_id',
  'changes',
] as const;

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    productId: row.product_id,
    at: row.at,
    actor: { kind: row.actor_kind, memberId: row.actor_member_id, credentialId: row.actor_credential_id },
    operation: row.operation,
    target: { type: row.target_type, id: row.target_id },
    requestId: row.request_id,
    changes: row.changes,
  };
}

export function createPostgresAuditLog(db: DbExecutor): AuditLog {
  return {
    async append(entry) {
      const [row] = await db('audit_log')
        .insert({
          id: newId(),
          product_id: entry.productId,
          actor_kind: entry.actor.kind,
          actor_member_id: entry.actor.memberId,
          actor_credential_id: entry.actor.credentialId,
          operation: entry.operation,
          target_type: entry.target.type,
          target_id: entry.target.id,
          request_id: entry.requestId,
          changes: [...entry.changes].sort(),
        })
        .returning(COLUMNS);
      return toEntry(row as AuditRow);
    },
    async list(productId, page) {
      if (!isUuid(productId)) return [];
      const q = db<AuditRow>('audit_log')
        .select(COLUMNS)
        .where({ product_id: productId })
        .orderBy('seq', 'desc')
        .limit(page.limit);
      if (page.beforeId !== undefined) {
        if (!isUuid(page.beforeId)) return [];
        q.andWhereRaw('seq < (select seq from audit_log where id = ? and product_id = ?)', [
          page.beforeId,
          productId,
        ]);
      }
      return ((await q) as unknown as AuditRow[]).map(toEntry);
    },
  };
}
