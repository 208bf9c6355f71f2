// The management API's authenticator: `Authorization: Bearer <token>` only.
//   no Authorization header                       → 401 missing_token (step authentication)
//   anything else that is not an active credential → 401 invalid_token (step token_validation)
// Wrong scheme, malformed, unknown and revoked tokens get the same answer, so a caller learns
// nothing about which credentials exist.
import { ApiError, parseSecret } from '@lattice/core';
import type { Authenticator } from '@lattice/http';
import type { CredentialResolver } from './credential-resolver.ts';

export const AUTH_STEP = { missing: 'authentication', invalid: 'token_validation' } as const;

// RFC 9110: the scheme is case-insensitive; one or more spaces; a single token68.
const BEARER_RE = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

export function missingToken(): ApiError {
  return new ApiError(
    401,
    'missing_token',
    AUTH_STEP.missing,
    'Send the credential as Authorization: Bearer <token>',
  );
}

export function invalidToken(): ApiError {
  return new ApiError(401, 'invalid_token', AUTH_STEP.invalid, 'The token is malformed, unknown or revoked');
}

export function createBearerAuthenticator(deps: { resolvers: readonly CredentialResolver[] }): Authenticator {
  const byPrefix = new Map(deps.resolvers.map((r) => [r.prefix, r]));
  if (byPrefix.size !== deps.resolvers.length) throw new Error('two credential resolvers share a prefix');
  return async (req) => {
    const header = req.headers.authorization;
    if (header === undefined) throw missingToken();
    const token = BEARER_RE.exec(header)?.[1];
    const parsed = token === undefined ? null : parseSecret(token);
    const resolver = parsed ? byPrefix.get(parsed.prefix) : undefined;
    if (!token || !resolver) throw invalidToken();
    const principal = await resolver.resolve(token);
    if (!principal) throw invalidToken();
    return principal;
  };
}
