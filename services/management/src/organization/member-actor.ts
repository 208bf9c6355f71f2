import type { RouteContext } from '@lattice/http';
import { memberForbidden } from '../errors.ts';
import { principalOf } from '../routes/principal.ts';
import type { Actor } from './member-rules.ts';

/** The calling member; organization member operations are reached by member tokens only. */
export function memberActorOf(ctx: RouteContext): Actor & { productId: string } {
  const p = principalOf(ctx);
  if (p.memberId === null || p.role === null) throw memberForbidden('Only a member token may do this');
  return { productId: p.productId, memberId: p.memberId, role: p.role };
}
