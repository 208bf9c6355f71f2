// A delegated token checked at the gateway: the signing key is looked up by the token's `kid` among
// the environment's keys (so a token minted by the other environment finds no key), then
// signature, audience and expiry are verified in constant time by @lattice/realtime.
import type { Environment } from '@lattice/core';
import { type RealtimeClaims, type SigningKeyStore, verifyRealtimeToken } from '@lattice/realtime';

export type TokenCheck = { claims: RealtimeClaims } | { rejected: string };

const KID = /^(production|development)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function kidOf(token: string): string | null {
  const head = token.split('.', 1)[0] ?? '';
  try {
    const header: unknown = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    const kid = (header as { kid?: unknown } | null)?.kid;
    return typeof kid === 'string' && kid.length <= 200 ? kid : null;
  } catch {
    return null;
  }
}

/** Throws when the keys cannot be read (the database is down): that is no verdict on the token. */
export async function checkToken(
  token: string,
  environment: Environment,
  keys: SigningKeyStore,
  nowMs: number,
): Promise<TokenCheck> {
  const kid = kidOf(token);
  if (kid === null) return { rejected: 'malformed' };
  // Keys are named `<environment>-<uuid>` (signing-key-store.ts): anything else is no key of
  // this environment, and costs no database read.
  if (!KID.test(kid) || !kid.startsWith(`${environment}-`)) return { rejected: 'unknown_key' };
  const key = await keys.byKid(environment, kid);
  return verifyRealtimeToken(token, environment, () => key, nowMs);
}
