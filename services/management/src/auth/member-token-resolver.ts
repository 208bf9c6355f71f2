// Member tokens (`lmt_`): looked up by SHA-256, then compared in constant time so a hash-index
// hit is confirmed without a timing signal.
import { constantTimeEqual, type Logger, sha256Hex } from '@lattice/core';
import { MEMBER_TOKEN_PREFIX, type MemberTokenRepository } from '@lattice/store';
import type { CredentialResolver } from './credential-resolver.ts';

export function createMemberTokenResolver(deps: {
  tokens: MemberTokenRepository;
  logger: Logger;
}): CredentialResolver {
  return {
    prefix: MEMBER_TOKEN_PREFIX,
    async resolve(token) {
      const hash = sha256Hex(token);
      const record = await deps.tokens.findActiveByHash(hash);
      if (!record || !constantTimeEqual(record.tokenHash, hash)) return null;
      try {
        await deps.tokens.touchLastUsed(record.id);
      } catch (err) {
        // Bookkeeping only: a failed last-used update must not refuse a valid caller.
        deps.logger.warn({ err, credentialId: record.id }, 'could not record token use');
      }
      return {
        productId: record.productId,
        credentialKind: 'member_token',
        credentialId: record.id,
        memberId: record.memberId,
        role: record.role,
      };
    },
  };
}
