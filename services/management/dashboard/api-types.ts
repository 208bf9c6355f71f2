// What the pages read from the management API, typed as the JSON Schemas of schemas/http say
// (organization-product.json, public-key-fields.json, public-key-list.json, error-body.json, and
// the organization's members, member tokens and audit log).
// The browser tests run the page against the real API, so a drift shows up there.
import type { PublicMethod, Toolkit } from '@lattice/http/public-routes';

export type Environment = 'production' | 'development';
export const ENVIRONMENTS: readonly Environment[] = ['production', 'development'];

export type Role = 'owner' | 'admin' | 'member';
/** Every role, the most powerful first (the order the pages offer them in). */
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

export interface ProductView {
  id: string;
  name: string;
  created_at: string;
  caller: {
    credential_kind: string;
    role: Role | null;
    /** The caller's member for a member token; null for an area key (absent from older servers). */
    member_id?: string | null;
  };
}

export type Scope =
  | { kind: 'product' }
  | { kind: 'toolkit'; toolkit: Toolkit }
  | { kind: 'route'; toolkit: Toolkit; method: PublicMethod; path: string };

export interface PublicKeyView {
  id: string;
  name: string;
  /** `lpk_`, or `lmk_` / `rtk_` for imported keys. */
  prefix: string;
  /** The eight hex characters after the prefix: all the list ever shows of a key. */
  visible: string;
  toolkits: Toolkit[];
  scope: Scope;
  environment: Environment;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at?: string;
  creator?: string;
  imported: boolean;
  imported_from?: Toolkit;
}

export type KeyPage = Page<PublicKeyView>;

export interface CreatedKey extends PublicKeyView {
  /** The full secret, in the creation answer only. */
  key: string;
}

export interface FieldProblem {
  path: string;
  message: string;
}

/** Every list of the API: one page, and the cursor of the next (null on the last page). */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface MemberView {
  id: string;
  name: string;
  role: Role;
  created_at: string;
}

export interface MemberTokenView {
  id: string;
  name: string;
  member_id: string;
  prefix: string;
  /** The eight hex characters after the prefix: all a list ever shows of a token. */
  visible: string;
  status: 'active' | 'revoked';
  created_at: string;
  /** Lags by up to a minute; null when never used. */
  last_used_at: string | null;
}

export interface CreatedMemberToken extends MemberTokenView {
  /** The full token, in the creation answer only. */
  token: string;
}

export interface CreatedMember {
  member: MemberView;
  /** The member's first token. */
  token: CreatedMemberToken;
}

export type CredentialKind = 'member_token' | 'mail_key' | 'realtime_key' | 'cli';

export interface AuditEntryView {
  id: string;
  at: string;
  actor: { credential_kind: CredentialKind; member_id: string | null; credential_id: string | null };
  /** The operationId of the change, e.g. `organization_members_create`. */
  operation: string;
  target: { type: string; id: string | null };
  request_id: string | null;
  /** Names of the changed fields, never their values. */
  changes: string[];
}
