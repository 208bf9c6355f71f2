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

  it('are accepted in exactly one spelling: no padding, the URL-safe alphabet, no stray bits', () => {
    const { token } = issue();
    const [h, b, sig] = token.split('.') as [string, string, string];
    expect(verifyRealtimeToken(token, 'production', keys, now)).to.have.property('claims');
    const standard = Buffer.from(sig, 'base64url').toString('base64');
    const respelled = [
      `${sig}=`, // padding appended (a 32-byte MAC has one pad character in standard base64)
      `${sig}==`,
      standard, // the standard alphabet, padded
      standard.replace(/=+$/, ''), // the standard alphabet, unpadded
      `${sig.slice(0, -1)}${String.fromCharCode(sig.charCodeAt(sig.length - 1) ^ 1)}`, // stray trailing bits
      ` ${sig}`,
      `${sig}\n`,
    ].filter((v) => v !== sig);
    expect(respelled).to.have.length.greaterThan(5);
    for (const variant of respelled) {
      const verified = verifyRealtimeToken(`${h}.${b}.${variant}`, 'production', keys, now);
      expect(verified, JSON.stringify(variant)).to.not.have.property('claims');
    }
  });
});
