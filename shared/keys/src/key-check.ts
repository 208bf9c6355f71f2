// The public edge's key check, as a pure function of an in-memory snapshot. Outcomes follow the
// spec's table exactly; unknown, mistyped, revoked-long-ago, foreign-product and
// other-environment keys are indistinguishable (one fixed 401 body).
import { ApiError, type Clock, sha256Hex, sha256HexEqual } from '@lattice/core';
import type { PublicRoute } from '@lattice/http';
import { type PublicKeyScope, scopeCovers } from './scope.ts';

export const KEY_CHECK_STEP = 'public_key_check';

export interface SnapshotKey {
  id: string;
  productId: string;
  hash: string;
  scope: PublicKeyScope;
  /** Null while active; set for a revoked key still inside its propagation window. */
  revokedAtMs: number | null;
}

export interface KeySnapshot {
  readonly loadedAtMs: number;
  readonly size: number;
  get(hash: string): SnapshotKey | undefined;
}

export function createKeySnapshot(keys: Iterable<SnapshotKey>, loadedAtMs: number): KeySnapshot {
  const byHash = new Map<string, SnapshotKey>();
  for (const k of keys) byHash.set(k.hash, k);
  return { loadedAtMs, size: byHash.size, get: (hash) => byHash.get(hash) };
}

export const KEY_CHECK_ERRORS = {
  required: () =>
    new ApiError(
      401,
      'public_key_required',
      KEY_CHECK_STEP,
      'This route needs a public key: send Authorization: Bearer <key>.',
    ),
  invalid: () => new ApiError(401, 'public_key_invalid', KEY_CHECK_STEP, 'The public key is not valid.'),
  scope: () =>
    new ApiError(
      403,
      'public_key_scope',
      KEY_CHECK_STEP,
      'The public key does not cover this route. Retrying unchanged will not help.',
    ),
  unavailable: () =>
    new ApiError(
      503,
      'public_config_unavailable',
      undefined,
      'Public key configuration is not loaded yet; retry with backoff.',
      {
        headers: { 'retry-after': '1' },
      },
    ),
};

export type KeyCheckResult = { ok: true; key: SnapshotKey } | { ok: false; error: ApiError };

export interface KeyCheckInput {
  snapshot: KeySnapshot | null;
  presented: string | null;
  productId: string;
  route: PublicRoute;
  /** Read only for a revoked key (most checks need no time). */
  clock: Clock;
  /** How long a revoked key answers 403 before it answers 401 (one snapshot window). */
  revokedGraceMs: number;
  /** The connection the key arrived on, for a finder that remembers keys per connection. */
  connection?: object;
}

/**
 * The snapshot's key for a presented value, or undefined. The value is hashed once; the map
 * lookup by that digest finds the candidate (its timing depends on the digest, never on the
 * secret) and the comparison that decides is one constant-time comparison of the two 32-byte
 * digests.
 */
export function findPresentedKey(snapshot: KeySnapshot, presented: string): SnapshotKey | undefined {
  const hash = sha256Hex(presented);
  const key = snapshot.get(hash);
  return key && sha256HexEqual(key.hash, hash) ? key : undefined;
}

/** How a key is found for a presented value: findPresentedKey, or a cache in front of it. */
export type KeyFinder = (
  snapshot: KeySnapshot,
  presented: string,
  connection: object | undefined,
) => SnapshotKey | undefined;

export function checkPublicKey(input: KeyCheckInput, find: KeyFinder = findPresentedKey): KeyCheckResult {
  if (!input.snapshot) return { ok: false, error: KEY_CHECK_ERRORS.unavailable() };
  if (!input.presented) return { ok: false, error: KEY_CHECK_ERRORS.required() };
  // The product id is public (it is in the path), so it is compared plainly.
  const key = find(input.snapshot, input.presented, input.connection);
  if (!key || key.productId !== input.productId) {
    return { ok: false, error: KEY_CHECK_ERRORS.invalid() };
  }
  if (key.revokedAtMs !== null) {
    const revokedForMs = input.clock.nowMs() - key.revokedAtMs;
    return {
      ok: false,
      error: revokedForMs > input.revokedGraceMs ? KEY_CHECK_ERRORS.invalid() : KEY_CHECK_ERRORS.scope(),
    };
  }
  if (!scopeCovers(key.scope, input.route)) return { ok: false, error: KEY_CHECK_ERRORS.scope() };
  return { ok: true, key };
}
