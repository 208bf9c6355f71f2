// Members of a product (docs/organization.md). A removed member is kept for the audit log and
// the keys it created, but is no longer listed, found or authenticated.
export type MemberRole = 'owner' | 'admin' | 'member';
export const MEMBER_ROLES: readonly MemberRole[] = ['owner', 'admin', 'member'];

export interface MemberRecord {
  id: string;
  productId: string;
  name: string;
  role: MemberRole;
  createdAt: Date;
}

/** One page of a list, oldest first: `limit` rows after the member with id `afterId`. */
export interface MemberPage {
  limit: number;
  afterId?: string;
}

export interface MemberRepository {
  create(input: { productId: string; name: string; role: MemberRole }): Promise<MemberRecord>;
  /** A current member; removed members and malformed ids are not found. */
  findById(productId: string, id: string): Promise<MemberRecord | undefined>;
  /** Current members, oldest first. */
  list(productId: string, page: MemberPage): Promise<MemberRecord[]>;
  /**
   * The ids of the product's current owners, locked until the caller's transaction ends, so two
   * concurrent demotions or removals cannot both leave the product without an owner.
   */
  lockOwners(productId: string): Promise<string[]>;
  updateRole(productId: string, id: string, role: MemberRole): Promise<MemberRecord | undefined>;
  /** Marks the member removed and revokes every token it has; false when it was not a member. */
  remove(productId: string, id: string): Promise<boolean>;
}
