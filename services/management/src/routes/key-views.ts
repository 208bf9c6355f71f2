// Keys as the API shows them. Never the hash and never the secret: the secret is added to a
// creation answer only, by the route that minted it.
import type { KeyPage, MailKeyRecord, PublicKeyRecord, RealtimeKeyRecord } from '@lattice/keys';
import { toolkitsReached } from '@lattice/keys';

export function publicKeyView(k: PublicKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    visible: k.visible,
    toolkits: toolkitsReached(k.scope),
    scope: k.scope,
    environment: k.environment,
    status: k.status,
    created_at: k.createdAt.toISOString(),
    ...(k.revokedAt ? { revoked_at: k.revokedAt.toISOString() } : {}),
    // Absent, not null, when there is none: the spec says so of imported keys.
    ...(k.createdBy !== null ? { creator: k.createdBy } : {}),
    imported: k.importedFrom !== null,
    ...(k.importedFrom !== null ? { imported_from: k.importedFrom } : {}),
  };
}

export function mailKeyView(k: MailKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    scope: k.scope,
    domain_id: k.domainId,
    visible: k.visible,
    created_at: k.createdAt.toISOString(),
  };
}

export function realtimeKeyView(k: RealtimeKeyRecord) {
  return { id: k.id, name: k.name, visible: k.visible, created_at: k.createdAt.toISOString() };
}

/** The page a list query asks the repository for: one row more than shown, to know if more follow. */
export function pageRequest(query: Record<string, unknown>): KeyPage {
  const cursor = query.cursor as string | undefined;
  return { limit: (query.limit as number) + 1, ...(cursor === undefined ? {} : { afterId: cursor }) };
}

/** `{data, next_cursor}` from the rows fetched with pageRequest. */
export function listAnswer<R extends { id: string }, V>(
  rows: readonly R[],
  page: KeyPage,
  view: (row: R) => V,
): { data: V[]; next_cursor: string | null } {
  const shown = rows.slice(0, page.limit - 1);
  const more = rows.length > shown.length;
  return { data: shown.map(view), next_cursor: more ? shown[shown.length - 1]!.id : null };
}
