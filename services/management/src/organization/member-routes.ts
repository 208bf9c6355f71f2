// Organization area: the product's members (docs/organization.md). Who may do what is decided by
// member-rules.ts; this adapter reads the facts and writes the outcome. Every change is audited
// (RouteDef.audit) in its own transaction; a member's removal revokes its tokens in it too, so
// the next request with any of them answers 401.
import type { RouteDef } from '@lattice/http';
import {
  issueMemberToken,
  type MemberRepository,
  type MemberRole,
  type MemberTokenRepository,
} from '@lattice/store';
import { lastOwner, memberForbidden, notFound } from '../errors.ts';
import { memberActorOf } from './member-actor.ts';
import { changeVerdict, mayCreate, type Verdict } from './member-rules.ts';
import { memberTokenView, memberView, pageOf } from './organization-views.ts';

export interface MemberRouteDeps {
  members: MemberRepository;
  memberTokens: MemberTokenRepository;
}

const common = { area: 'organization', auth: 'management' } as const;
const MANAGERS = { roles: ['owner', 'admin'] } as const;
/** The name of the token a new member gets with its creation. */
export const FIRST_TOKEN_NAME = 'first token';

const ownerOnly = () => memberForbidden('Only an owner may make an owner or change an owner');

function refuse(verdict: Exclude<Verdict, 'allowed'>) {
  return verdict === 'last_owner' ? lastOwner() : ownerOnly();
}

export function memberRoutes(deps: MemberRouteDeps): RouteDef[] {
  const { members, memberTokens } = deps;
  return [
    {
      ...common,
      method: 'GET',
      path: '/organization/members',
      operationId: 'organization_members_list',
      summary: 'List the members',
      description: 'The product’s current members with their roles, oldest first. Any member may list them.',
      request: { query: 'member-list-query' },
      responses: { 200: 'member-list' },
      errors: [memberForbidden('Only a member token may do this')],
      async handler(ctx) {
        const { productId } = memberActorOf(ctx);
        const limit = ctx.query.limit as number;
        const cursor = ctx.query.cursor as string | undefined;
        const rows = await members.list(productId, {
          limit: limit + 1,
          ...(cursor === undefined ? {} : { afterId: cursor }),
        });
        return { status: 200, body: pageOf(rows, limit, memberView) };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/organization/members',
      operationId: 'organization_members_create',
      summary: 'Add a member',
      description:
        'Adds a member with a role and answers its first member token in `token.token`, once (an ' +
        'invitation without mail: hand the token over yourself). Owners add any role; admins add ' +
        'admins and members (`owner`: 403 `forbidden`).',
      access: MANAGERS,
      audit: {
        targetType: 'member',
        targets: (_ctx, result) => [
          { id: (result.body as { member: { id: string } }).member.id, changes: ['name', 'role'] },
        ],
      },
      request: { body: 'member-create' },
      responses: { 201: 'member-created' },
      errors: [ownerOnly()],
      async handler(ctx) {
        const actor = memberActorOf(ctx);
        const body = ctx.body as { name: string; role: MemberRole };
        if (!mayCreate(actor, body.role)) throw ownerOnly();
        const member = await members.create({ productId: actor.productId, name: body.name, role: body.role });
        const { token, record } = await issueMemberToken(memberTokens, {
          productId: actor.productId,
          memberId: member.id,
          name: FIRST_TOKEN_NAME,
        });
        return {
          status: 201,
          body: { member: memberView(member), token: { ...memberTokenView(record), token } },
        };
      },
    },
    {
      ...common,
      method: 'PUT',
      path: '/organization/members/:id/role',
      operationId: 'organization_members_update-role',
      summary: 'Change a member’s role',
      description:
        'Owners change anyone’s role; admins change admins and members and never grant `owner` ' +
        '(403 `forbidden`). The last owner cannot be demoted (409 `last_owner`). Takes effect on ' +
        'the member’s next request.',
      access: MANAGERS,
      audit: { targetType: 'member' },
      request: { params: 'member-id-params', body: 'member-role-update' },
      responses: { 200: 'member' },
      errors: [notFound('member'), ownerOnly(), lastOwner()],
      async handler(ctx) {
        const actor = memberActorOf(ctx);
        const id = ctx.params.id as string;
        const { role } = ctx.body as { role: MemberRole };
        // Owners first, under lock: two demotions at once cannot both pass the last-owner rule.
        const owners = await members.lockOwners(actor.productId);
        const target = await members.findById(actor.productId, id);
        if (!target) throw notFound('member');
        const verdict = changeVerdict(actor, target, role, owners);
        if (verdict !== 'allowed') throw refuse(verdict);
        const updated = await members.updateRole(actor.productId, id, role);
        if (!updated) throw notFound('member');
        return { status: 200, body: memberView(updated) };
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/organization/members/:id',
      operationId: 'organization_members_remove',
      summary: 'Remove a member',
      description:
        'Removes the member and revokes every token it has in the same transaction: the next ' +
        'request with any of them answers 401 `invalid_token`. Admins remove admins and members, ' +
        'not owners; the last owner cannot be removed (409 `last_owner`).',
      access: MANAGERS,
      audit: { targetType: 'member' },
      request: { params: 'member-id-params' },
      responses: { 204: { description: 'Removed; its tokens no longer authenticate' } },
      errors: [notFound('member'), ownerOnly(), lastOwner()],
      async handler(ctx) {
        const actor = memberActorOf(ctx);
        const id = ctx.params.id as string;
        const owners = await members.lockOwners(actor.productId);
        const target = await members.findById(actor.productId, id);
        if (!target) throw notFound('member');
        const verdict = changeVerdict(actor, target, undefined, owners);
        if (verdict !== 'allowed') throw refuse(verdict);
        if (!(await members.remove(actor.productId, id))) throw notFound('member');
        return { status: 204 };
      },
    },
  ];
}
