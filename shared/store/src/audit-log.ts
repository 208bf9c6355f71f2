// The audit log: one entry per successful change of a product's credentials or settings, written
// by the change's own transaction (docs/organization.md "Audit log"). Entries hold names, never
// values: `changes` lists the fields a change set, and no secret or key value is ever recorded.

/** What kind of credential made a change; `cli` is an operator at the `lattice` command line. */
export type AuditActorKind = 'member_token' | 'mail_key' | 'realtime_key' | 'cli';
export const AUDIT_ACTOR_KINDS: readonly AuditActorKind[] = [
  'member_token',
  'mail_key',
  'realtime_key',
  'cli',
];

export interface AuditActor {
  kind: AuditActorKind;
  /** The member behind a member token; null for area keys and the command line. */
  memberId: string | null;
  /** The token or key that made the change; null for the command line. */
  credentialId: string | null;
}

export interface NewAuditEntry {
  productId: string;
  actor: AuditActor;
  /** The operationId of the change (`organization_public-keys_revoke`). */
  operation: string;
  target: { type: string; id: string | null };
  requestId: string | null;
  /** Names of the fields the change set, sorted; empty for removals. */
  changes: readonly string[];
}

export interface AuditEntry extends NewAuditEntry {
  id: string;
  at: Date;
}

/** One page, newest first: `limit` entries older than the entry with id `beforeId`. */
export interface AuditPage {
  limit: number;
  beforeId?: string;
}

export interface AuditLog {
  /** Must run in the transaction of the change it records. */
  append(entry: NewAuditEntry): Promise<AuditEntry>;
  list(productId: string, page: AuditPage): Promise<AuditEntry[]>;
}
