// Who may do what to whom among a product's members (docs/organization.md "Who may do what").
// Pure: the member routes read the facts, ask here, and answer what this decides.
//   owner   everything
//   admin   creates, re-roles and removes admins and members, lists and revokes their tokens;
//           never touches an owner, never grants `owner`
//   member  lists members; mints, lists and revokes its own tokens; nothing else
// And whoever acts: the last owner can be neither demoted nor removed.
import type { MemberRole } from '@lattice/store';

export interface Actor {
  memberId: string;
  role: MemberRole;
}

export type Verdict = 'allowed' | 'forbidden' | 'last_owner';

/** May `actor` give a new member `role`? */
export function mayCreate(actor: Actor, role: MemberRole): boolean {
  return actor.role === 'owner' || (actor.role === 'admin' && role !== 'owner');
}

/** May `actor` act on `target` at all (re-role, remove, or its tokens)? Oneself always for tokens. */
export function mayManage(actor: Actor, target: { role: MemberRole }): boolean {
  return actor.role === 'owner' || (actor.role === 'admin' && target.role !== 'owner');
}

/** List or revoke the tokens of `owner`: one's own, or a member one may manage. */
export function mayHandleTokensOf(actor: Actor, owner: { id: string; role: MemberRole }): boolean {
  return owner.id === actor.memberId || mayManage(actor, owner);
}

/**
 * Re-roling `target` to `role` (or removing it, `role` undefined), given the ids of the product's
 * current owners (read under lock by the caller).
 */
export function changeVerdict(
  actor: Actor,
  target: { id: string; role: MemberRole },
  role: MemberRole | undefined,
  ownerIds: readonly string[],
): Verdict {
  if (!mayManage(actor, target)) return 'forbidden';
  if (role !== undefined && !mayCreate(actor, role)) return 'forbidden';
  const losesOwner = target.role === 'owner' && role !== 'owner';
  if (losesOwner && ownerIds.length <= 1 && ownerIds.includes(target.id)) return 'last_owner';
  return 'allowed';
}
