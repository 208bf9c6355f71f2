import { ApiError } from '@lattice/core';
import type { Principal } from '@lattice/http';
import { expect } from 'chai';
import type { Request } from 'express';
import { createBearerAuthenticator } from './bearer-authenticator.ts';
import type { CredentialResolver } from './credential-resolver.ts';

const GOOD = `lmt_${'a'.repeat(32)}`;
const PRINCIPAL: Principal = {
  productId: 'p',
  credentialKind: 'member_token',
  credentialId: 't',
  memberId: 'm',
  role: 'admin',
};

function requestWith(authorization?: string): Request {
  return { headers: authorization === undefined ? {} : { authorization } } as Request;
}

async function outcome(authenticate: ReturnType<typeof createBearerAuthenticator>, authorization?: string) {
  try {
    return await authenticate(requestWith(authorization));
  } catch (err) {
    if (err instanceof ApiError) return err.toBody();
    throw err;
  }
}

describe('createBearerAuthenticator', () => {
  const seen: string[] = [];
  const resolver: CredentialResolver = {
    prefix: 'lmt_',
    async resolve(token) {
      seen.push(token);
      return token === GOOD ? PRINCIPAL : null;
    },
  };
  const authenticate = createBearerAuthenticator({ resolvers: [resolver] });
  beforeEach(() => {
    seen.length = 0;
  });

  it('answers missing_token only when there is no Authorization header', async () => {
    expect(await outcome(authenticate)).to.deep.equal({
      error: {
        code: 'missing_token',
        message: 'Send the credential as Authorization: Bearer <token>',
        step: 'authentication',
      },
    });
  });

  it('answers invalid_token at token_validation for every other failure, without consulting storage for malformed ones', async () => {
    const cases = [
      '',
      'Bearer',
      'Bearer ',
      `Basic ${GOOD}`,
      `Token ${GOOD}`,
      `Bearer ${GOOD} extra`,
      `Bearer ${GOOD.toUpperCase()}`,
      'Bearer lmt_short',
      `Bearer lmk_${'a'.repeat(32)}`,
      `Bearer ${GOOD.slice(0, -1)}é`,
      `Bearer\t${GOOD}`,
    ];
    for (const header of cases) {
      expect(await outcome(authenticate, header), JSON.stringify(header)).to.deep.equal({
        error: {
          code: 'invalid_token',
          message: 'The token is malformed, unknown or revoked',
          step: 'token_validation',
        },
      });
    }
    expect(seen).to.deep.equal([]);
    expect(await outcome(authenticate, `Bearer lmt_${'b'.repeat(32)}`)).to.have.nested.property(
      'error.code',
      'invalid_token',
    );
    expect(seen).to.deep.equal([`lmt_${'b'.repeat(32)}`]);
  });

  it('resolves a well-formed token, with a case-insensitive scheme', async () => {
    expect(await outcome(authenticate, `Bearer ${GOOD}`)).to.deep.equal(PRINCIPAL);
    expect(await outcome(authenticate, `bearer  ${GOOD}`)).to.deep.equal(PRINCIPAL);
  });

  it('routes each prefix to its own resolver and refuses two resolvers for one prefix', async () => {
    const areaKey = `rtk_${'c'.repeat(32)}`;
    const withArea = createBearerAuthenticator({
      resolvers: [
        resolver,
        {
          prefix: 'rtk_',
          resolve: async (t) => (t === areaKey ? { ...PRINCIPAL, credentialKind: 'realtime_key' } : null),
        },
      ],
    });
    expect(await outcome(withArea, `Bearer ${areaKey}`)).to.have.property('credentialKind', 'realtime_key');
    expect(() => createBearerAuthenticator({ resolvers: [resolver, resolver] })).to.throw(/share a prefix/);
  });
});
