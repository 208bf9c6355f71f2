// Members, member tokens and audit entries as the API shows them: never a token's hash, never a
// token except in the answer that minted it (added by that route).
import type { AuditEntry, MemberRecord, MemberTokenRecord } from '@lattice/store';
import { MEMBER_TOKEN_PREFIX } from '@lattice/store';

export function memberView(m: MemberRecord) {
  return { id: m.id, name: m.name, role: m.role, created_at: m.createdAt.toISOString() };
}

export function memberTokenView(t: MemberTokenRecord) {
  return {
    id: t.id,
    name: t.name,
    member_id: t.memberId,
    prefix: MEMBER_TOKEN_PREFIX,
    visible: t.visible,
    status: t.revokedAt === null ? 'active' : 'revoked',
    created_at: t.createdAt.toISOString(),
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  };
}

export function auditEntryView(e: AuditEntry) {
  return {
    id: e.id,
    at: e.at.toISOString(),
    actor: {
      credential_kind: e.actor.kind,
      member_id: e.actor.memberId,
      credential_id: e.actor.credentialId,
    },
    operation: e.operation,
    target: { type: e.target.type, id: e.target.id },
    request_id: e.requestId,
    changes: e.changes,
  };
}

/** `{data, next_cursor}` from one row more than the page shows (`limit + 1` fetched). */
export function pageOf<R extends { id: string }, V>(rows: readonly R[], limit: number, view: (row: R) => V) {
  const shown = rows.slice(0, limit);
  return { data: shown.map(view), next_cursor: rows.length > limit ? shown[shown.length - 1]!.id : null };
}
