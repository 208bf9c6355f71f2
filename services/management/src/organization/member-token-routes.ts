// Organization area: member tokens (`lmt_`, docs/organization.md). A member mints tokens for
// itself only; it lists and revokes its own, and owners and admins those of the members they may
// manage (member-rules.ts). A revoked token answers 401 from the request after the revocation's
// answer: authentication reads the token's state from the database on every request.
import type { RouteDef } from '@lattice/http';
import { issueMemberToken, type MemberRepository, type MemberTokenRepository } from '@lattice/store';
import { memberForbidden, notFound } from '../errors.ts';
import { memberActorOf } from './member-actor.ts';
import { mayHandleTokensOf } from './member-rules.ts';
import { memberTokenView, pageOf } from './organization-views.ts';

export interface MemberTokenRouteDeps {
  members: MemberRepository;
  memberTokens: MemberTokenRepository;
}

const common = { area: 'organization', auth: 'management' } as const;

const notYours = () =>
  memberForbidden('Only the token’s member, an owner, or an admin (not for an owner’s tokens) may do this');

export function memberTokenRoutes(deps: MemberTokenRouteDeps): RouteDef[] {
  const { members, memberTokens } = deps;
  return [
    {
      ...common,
      method: 'POST',
      path: '/organization/member-tokens',
      operationId: 'organization_member-tokens_create',
      summary: 'Create a member token for yourself',
      description:
        'Mints an `lmt_` token for the calling member (never for someone else) with the member’s ' +
        'role. The answer carries the token in `token`, once; it is stored only as a hash.',
      audit: { targetType: 'member_token' },
      request: { body: 'member-token-create' },
      responses: { 201: 'member-token-created' },
      errors: [memberForbidden('Only a member token may do this')],
      async handler(ctx) {
        const actor = memberActorOf(ctx);
        const { name } = ctx.body as { name: string };
        const { token, record } = await issueMemberToken(memberTokens, {
          productId: actor.productId,
          memberId: actor.memberId,
          name,
        });
        return { status: 201, body: { ...memberTokenView(record), token } };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/organization/member-tokens',
      operationId: 'organization_member-tokens_list',
      summary: 'List member tokens',
      description:
        'Your own tokens, active and revoked, newest first; with `member_id`, that member’s (an ' +
        'owner’s or admin’s right; an admin not for an owner). Shows the first eight characters ' +
        'of each token, never the token.',
      request: { query: 'member-token-list-query' },
      responses: { 200: 'member-token-list' },
      errors: [notFound('member'), notYours()],
      async handler(ctx) {
        const actor = memberActorOf(ctx);
        const memberId = (ctx.query.member_id as string | undefined) ?? actor.memberId;
        if (memberId !== actor.memberId) {
          const owner = await members.findById(actor.productId, memberId);
          if (!owner) throw notFound('member');
          if (!mayHandleTokensOf(actor, owner)) throw notYours();
        }
        const limit = ctx.query.limit as number;
        const cursor = ctx.query.cursor as string | undefined;
        const rows = await memberTokens.listByMember(actor.productId, memberId, {
          limit: limit + 1,
          ...(cursor === undefined ? {} : { afterId: cursor }),
        });
        return { status: 200, body: pageOf(rows, limit, memberTokenView) };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/organization/member-tokens/:id/revoke',
      operationId: 'organization_member-tokens_revoke',
      summary: 'Revoke a member token',
      description:
        'Revokes the token for good: the next request with it answers 401 `invalid_token`. Your ' +
        'own, or (owners and admins) another member’s; an admin not an owner’s. Revoking a ' +
        'revoked token changes nothing and answers it.',
      audit: {
        targetType: 'member_token',
        targets: (ctx) => [{ id: ctx.params.id as string, changes: ['status'] }],
      },
      request: { params: 'member-token-id-params' },
      responses: { 200: 'member-token' },
      errors: [notFound('member token'), notYours()],
      async handler(ctx) {
        const actor = memberActorOf(ctx);
        const id = ctx.params.id as string;
        const token = await memberTokens.get(actor.productId, id);
        if (!token) throw notFound('member token');
        if (token.memberId !== actor.memberId) {
          // A removed member's tokens are revoked already; its role no longer counts.
          const owner = (await members.findById(actor.productId, token.memberId)) ?? {
            id: token.memberId,
            role: 'member' as const,
          };
          if (!mayHandleTokensOf(actor, owner)) throw notYours();
        }
        const revoked = await memberTokens.revoke(actor.productId, id);
        if (!revoked) throw notFound('member token');
        return { status: 200, body: memberTokenView(revoked) };
      },
    },
  ];
}
