// What a caller's role lets it do on the Members page, as the API's rules say (docs/organization.md):
// a `member` lists members and keeps its own tokens; an `admin` also adds, re-roles and removes
// admins and members but never touches an owner nor grants `owner`; an `owner` does everything.
// The page shows only what the role may do; the API still decides every call.
import { type MemberView, ROLES, type Role } from './api-types.ts';

export interface MemberPermissions {
  /** Adds members, changes roles, removes members, reads the audit log. */
  manages: boolean;
  /** The roles this caller may give, the most powerful first. */
  assignable: readonly Role[];
  /** Whether this caller may change this member's role or remove it. */
  mayTouch(member: MemberView): boolean;
}

export function permissionsOf(role: Role | null): MemberPermissions {
  switch (role) {
    case 'owner':
      return { manages: true, assignable: ROLES, mayTouch: () => true };
    case 'admin':
      return {
        manages: true,
        assignable: ROLES.filter((r) => r !== 'owner'),
        mayTouch: (member) => member.role !== 'owner',
      };
    default:
      return { manages: false, assignable: [], mayTouch: () => false };
  }
}
