import { createLogger, sha256Hex } from '@lattice/core';
import { ManualClock } from '@lattice/core/testing';
import type { MemberTokenRepository } from '@lattice/store';
import { expect } from 'chai';
import { createMemberTokenResolver, LAST_USED_THROTTLE_MS } from './member-token-resolver.ts';

const logger = createLogger({ name: 'member-token-resolver-test', level: 'silent' });
const TOKEN_A = `lmt_${'a'.repeat(32)}`;
const TOKEN_B = `lmt_${'b'.repeat(32)}`;

function fakeTokens(active: string[]) {
  const lookups: string[][] = [];
  const touches: string[] = [];
  let failTouch = false;
  const record = (token: string) => ({
    id: `id-${token.slice(-1)}`,
    productId: 'p',
    memberId: 'm',
    name: 'n',
    tokenHash: sha256Hex(token),
    visible: 'aaaaaaaa',
    createdAt: new Date(0),
    revokedAt: null,
    lastUsedAt: null,
    role: 'owner' as const,
  });
  const tokens = {
    async findActiveByHashes(hashes: readonly string[]) {
      lookups.push([...hashes]);
      return active.map(record).filter((r) => hashes.includes(r.tokenHash));
    },
    async touchLastUsed(id: string) {
      touches.push(id);
      if (failTouch) throw new Error('database unavailable');
    },
  } as unknown as MemberTokenRepository;
  return {
    tokens,
    lookups,
    touches,
    failTouches: (on: boolean) => {
      failTouch = on;
    },
  };
}

describe('member token resolver', () => {
  it('looks up the tokens of one turn in one query, each answered on its own', async () => {
    const fake = fakeTokens([TOKEN_A]);
    const resolver = createMemberTokenResolver({ tokens: fake.tokens, logger });
    const [a, b, again] = await Promise.all([
      resolver.resolve(TOKEN_A),
      resolver.resolve(TOKEN_B),
      resolver.resolve(TOKEN_A),
    ]);
    expect(fake.lookups).to.deep.equal([[sha256Hex(TOKEN_A), sha256Hex(TOKEN_B)]]);
    expect(a?.credentialId).to.equal('id-a');
    expect(b, 'not active').to.equal(null);
    expect(again?.credentialId).to.equal('id-a');
    // A later request reads the database again (a revocation in between is seen).
    await resolver.resolve(TOKEN_A);
    expect(fake.lookups).to.have.length(2);
  });

  it('records a token’s use at most once per throttle window per process, and a failed record refuses nobody', async () => {
    const fake = fakeTokens([TOKEN_A]);
    const clock = new ManualClock(1_000_000);
    const resolver = createMemberTokenResolver({ tokens: fake.tokens, logger, clock });
    await resolver.resolve(TOKEN_A);
    clock.advance(LAST_USED_THROTTLE_MS - 1);
    await resolver.resolve(TOKEN_A);
    expect(fake.touches).to.deep.equal(['id-a']);
    clock.advance(1);
    fake.failTouches(true);
    expect((await resolver.resolve(TOKEN_A))?.credentialId).to.equal('id-a');
    expect(fake.touches).to.deep.equal(['id-a', 'id-a']);
    // The failed record is tried again on the next request, not a window later.
    fake.failTouches(false);
    await resolver.resolve(TOKEN_A);
    expect(fake.touches).to.deep.equal(['id-a', 'id-a', 'id-a']);
  });
});
