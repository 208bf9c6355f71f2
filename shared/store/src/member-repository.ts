// Members of a product. Owners and admins manage keys; every member token reaches all areas.
export type MemberRole = 'owner' | 'admin' | 'member';
export const MEMBER_ROLES: readonly MemberRole[] = ['owner', 'admin', 'member'];

export interface MemberRecord {
  id: string;
  productId: string;
  name: string;
  role: MemberRole;
  createdAt: Date;
}

export interface MemberRepository {
  create(input: { productId: string; name: string; role: MemberRole }): Promise<MemberRecord>;
  findById(productId: string, id: string): Promise<MemberRecord | undefined>;
  listByProduct(productId: string): Promise<MemberRecord[]>;
}
