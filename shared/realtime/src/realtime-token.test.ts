import { expect } from 'chai';
import { signRealtimeToken, verifyRealtimeToken } from './realtime-token.ts';

const key = { kid: 'k1', secret: Buffer.alloc(32, 7).toString('base64url') };
const keys = (kid: string) => (kid === key.kid ? key : undefined);
const now = 1_700_000_000_000;
const issue = (environment: 'production' | 'development' = 'production', ttlSeconds = 60) =>
  signRealtimeToken(
    {
      productId: 'p1',
      environment,
      subject: 'user-1',
      grants: [{ name: 'chat:a', ops: ['subscribe'] }],
      ttlSeconds,
      nowMs: now,
    },
    key,
  );

describe('realtime tokens', () => {
  it('carry product, environment, ext:<subject>, the external marker, grants and exp', () => {
    const { token, claims } = issue();
    expect(claims).to.deep.include({
      sub: 'ext:user-1',
      ext: true,
      pid: 'p1',
      env: 'production',
      exp: now / 1000 + 60,
    });
    const verified = verifyRealtimeToken(token, 'production', keys, now);
    expect(verified).to.have.nested.property('claims.sub', 'ext:user-1');
  });

  it('stop working at exp', () => {
    const { token } = issue();
    expect(verifyRealtimeToken(token, 'production', keys, now + 59_999)).to.have.property('claims');
    expect(verifyRealtimeToken(token, 'production', keys, now + 60_000)).to.deep.equal({
      rejected: 'expired',
    });
  });

  it('are valid only on the minting environment', () => {
    const { token } = issue('development');
    expect(verifyRealtimeToken(token, 'production', keys, now)).to.deep.equal({
      rejected: 'wrong_environment',
    });
  });

  it('reject tampering, unknown keys and garbage', () => {
    const { token } = issue();
    const [h, , s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...issue().claims, pid: 'p2' })).toString('base64url');
    expect(verifyRealtimeToken(`${h}.${forged}.${s}`, 'production', keys, now)).to.deep.equal({
      rejected: 'bad_signature',
    });
    expect(verifyRealtimeToken(token, 'production', () => undefined, now)).to.deep.equal({
      rejected: 'unknown_key',
    });
    expect(verifyRealtimeToken('a.b', 'production', keys, now)).to.deep.equal({ rejected: 'malformed' });
    expect(verifyRealtimeToken('x.y.z', 'production', keys, now)).to.deep.equal({ rejected: 'malformed' });
  });
});
