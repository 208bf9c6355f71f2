// Member tokens (`lmt_…`): stored as SHA-256 plus the first eight hex characters of the body.
// The plaintext exists only in the answer that created it.
import type { MemberRole } from './member-repository.ts';

export interface MemberTokenRecord {
  id: string;
  productId: string;
  memberId: string;
  name: string;
  /** SHA-256 hex of the whole token, prefix included. */
  tokenHash: string;
  /** First eight hex characters of the token body, for listings. */
  visible: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** An unrevoked token joined with its member's current role, which is what authentication needs. */
export interface ActiveMemberToken extends MemberTokenRecord {
  role: MemberRole;
}

export interface NewMemberToken {
  productId: string;
  memberId: string;
  name: string;
  tokenHash: string;
  visible: string;
}

/** One page of a list, newest first: `limit` rows after the token with id `afterId`. */
export interface MemberTokenPage {
  limit: number;
  afterId?: string;
}

export interface MemberTokenRepository {
  create(input: NewMemberToken): Promise<MemberTokenRecord>;
  findActiveByHash(tokenHash: string): Promise<ActiveMemberToken | undefined>;
  /**
   * The active tokens among these hashes, in one query (malformed hashes are not found). A token
   * is active when it is not revoked and its member is not removed.
   */
  findActiveByHashes(tokenHashes: readonly string[]): Promise<ActiveMemberToken[]>;
  listByProduct(productId: string): Promise<MemberTokenRecord[]>;
  /** A member's tokens, active and revoked, newest first. */
  listByMember(productId: string, memberId: string, page: MemberTokenPage): Promise<MemberTokenRecord[]>;
  /** A token of the product, whatever its state; undefined for unknown or malformed ids. */
  get(productId: string, id: string): Promise<MemberTokenRecord | undefined>;
  /** The token once revoked (revoking a revoked token changes nothing and answers it as it is). */
  revoke(productId: string, id: string): Promise<MemberTokenRecord | undefined>;
  /**
   * Records use, at most once per LAST_USED_RESOLUTION_SECONDS per token so authentication stays
   * read-mostly (callers also throttle it per process: `last_used_at` may lag by up to a minute).
   */
  touchLastUsed(id: string): Promise<void>;
}
