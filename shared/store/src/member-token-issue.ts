// The one way to create a member token: mint, then persist only its hash and visible part.
import { mintSecret, sha256Hex, visiblePart } from '@lattice/core';
import type { MemberTokenRecord, MemberTokenRepository } from './member-token-repository.ts';

export const MEMBER_TOKEN_PREFIX = 'lmt_';

export interface IssuedMemberToken {
  /** The plaintext token; return it to the caller once and never store or log it. */
  token: string;
  record: MemberTokenRecord;
}

export async function issueMemberToken(
  repo: MemberTokenRepository,
  input: { productId: string; memberId: string; name: string },
): Promise<IssuedMemberToken> {
  const token = mintSecret(MEMBER_TOKEN_PREFIX);
  const record = await repo.create({ ...input, tokenHash: sha256Hex(token), visible: visiblePart(token) });
  return { token, record };
}
