// Member tokens (`lmt_`): looked up by SHA-256, then compared in constant time so a hash-index
// hit is confirmed without a timing signal.
//
// Every request reads the database after it arrived (a revoked token is refused from the request
// after the revocation's answer), but the lookups of the requests read in one event-loop turn
// share one query: under load that is one round trip, not one per request, so the pool's
// connections are not what a busy publisher waits for. Last use is recorded beside the request,
// never in its way, at most once per LAST_USED_THROTTLE_MS per token and process, and the database
// keeps it at a minute's resolution (docs/organization.md: written at most once a minute per
// token, so it may lag by up to a minute).
import {
  type Clock,
  constantTimeEqual,
  createKeyedTurnBatcher,
  type Logger,
  sha256Hex,
  systemClock,
} from '@lattice/core';
import { MEMBER_TOKEN_PREFIX, type MemberTokenRepository } from '@lattice/store';
import type { CredentialResolver } from './credential-resolver.ts';

type ActiveToken = NonNullable<Awaited<ReturnType<MemberTokenRepository['findActiveByHash']>>>;

/** How often one process records a token's use at most. */
export const LAST_USED_THROTTLE_MS = 60_000;
/** Tokens remembered for the throttle; past it the memory starts over (a few extra writes). */
const THROTTLE_ENTRIES_MAX = 10_000;

interface Lookup {
  resolve(token: ActiveToken | undefined): void;
  reject(err: unknown): void;
}

export function createMemberTokenResolver(deps: {
  tokens: MemberTokenRepository;
  logger: Logger;
  clock?: Clock;
}): CredentialResolver {
  const clock = deps.clock ?? systemClock;
  const touchedAtMs = new Map<string, number>();

  const lookups = createKeyedTurnBatcher<string, Lookup>((groups) => {
    deps.tokens.findActiveByHashes([...groups.keys()]).then(
      (found) => {
        const byHash = new Map(found.map((t) => [t.tokenHash, t]));
        for (const [hash, waiting] of groups) for (const w of waiting) w.resolve(byHash.get(hash));
      },
      (err: unknown) => {
        for (const waiting of groups.values()) for (const w of waiting) w.reject(err);
      },
    );
  });
  const lookup = (hash: string) =>
    new Promise<ActiveToken | undefined>((resolve, reject) => lookups.add(hash, { resolve, reject }));

  async function touch(id: string): Promise<void> {
    const nowMs = clock.nowMs();
    const last = touchedAtMs.get(id);
    if (last !== undefined && nowMs - last < LAST_USED_THROTTLE_MS) return;
    if (touchedAtMs.size >= THROTTLE_ENTRIES_MAX) touchedAtMs.clear();
    touchedAtMs.set(id, nowMs);
    try {
      await deps.tokens.touchLastUsed(id);
    } catch (err) {
      // Bookkeeping only: a failed last-used update must not refuse a valid caller.
      touchedAtMs.delete(id);
      deps.logger.warn({ err, credentialId: id }, 'could not record token use');
    }
  }

  return {
    prefix: MEMBER_TOKEN_PREFIX,
    async resolve(token) {
      const hash = sha256Hex(token);
      const record = await lookup(hash);
      if (!record || !constantTimeEqual(record.tokenHash, hash)) return null;
      // Off the request's path: the answer never waits for bookkeeping.
      void touch(record.id);
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
