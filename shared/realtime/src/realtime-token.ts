// Realtime tokens are JWTs (HS256) signed with the minting environment's key. The subject is
// stored as `ext:<subject>` with an external-subject marker; the grants are the narrowed ones.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Environment } from '@lattice/core';
import type { ChannelGrant } from './token-request.ts';

export interface RealtimeClaims {
  iss: 'lattice';
  /** Valid only on this environment's realtime service. */
  aud: `lattice-realtime:${Environment}`;
  sub: `ext:${string}`;
  /** Marks the subject as an integrator's end user, not a Lattice member. */
  ext: true;
  pid: string;
  env: Environment;
  grants: ChannelGrant[];
  iat: number;
  exp: number;
  jti: string;
}

export interface SigningKey {
  kid: string;
  /** Raw key bytes, base64url. */
  secret: string;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

function mac(secret: string, input: string): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'base64url')).update(input).digest();
}

export function signRealtimeToken(
  input: {
    productId: string;
    environment: Environment;
    subject: string;
    grants: ChannelGrant[];
    ttlSeconds: number;
    nowMs: number;
  },
  key: SigningKey,
): { token: string; claims: RealtimeClaims } {
  const iat = Math.floor(input.nowMs / 1000);
  const claims: RealtimeClaims = {
    iss: 'lattice',
    aud: `lattice-realtime:${input.environment}`,
    sub: `ext:${input.subject}`,
    ext: true,
    pid: input.productId,
    env: input.environment,
    grants: input.grants,
    iat,
    exp: iat + input.ttlSeconds,
    jti: randomUUID(),
  };
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: key.kid }));
  const body = b64url(JSON.stringify(claims));
  return { token: `${head}.${body}.${b64url(mac(key.secret, `${head}.${body}`))}`, claims };
}

export type TokenRejection = 'malformed' | 'unknown_key' | 'bad_signature' | 'wrong_environment' | 'expired';

/** Verifies signature (constant time), audience and expiry; `keyOf` finds the environment's key by kid. */
export function verifyRealtimeToken(
  token: string,
  environment: Environment,
  keyOf: (kid: string) => SigningKey | undefined,
  nowMs: number,
): { claims: RealtimeClaims } | { rejected: TokenRejection } {
  const parts = token.split('.');
  if (parts.length !== 3) return { rejected: 'malformed' };
  const [head, body, sig] = parts as [string, string, string];
  let header: { alg?: string; kid?: string };
  let claims: RealtimeClaims;
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { rejected: 'malformed' };
  }
  if (header.alg !== 'HS256' || typeof header.kid !== 'string') return { rejected: 'malformed' };
  const key = keyOf(header.kid);
  if (!key) return { rejected: 'unknown_key' };
  const expected = mac(key.secret, `${head}.${body}`);
  const given = Buffer.from(sig, 'base64url');
  // One spelling only: Node's decoder also takes padding, the standard alphabet and stray
  // trailing bits, so the signature must be exactly what encoding its bytes gives back.
  if (given.toString('base64url') !== sig) return { rejected: 'malformed' };
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { rejected: 'bad_signature' };
  if (claims.aud !== `lattice-realtime:${environment}` || claims.env !== environment)
    return { rejected: 'wrong_environment' };
  if (typeof claims.exp !== 'number' || nowMs >= claims.exp * 1000) return { rejected: 'expired' };
  return { claims };
}
