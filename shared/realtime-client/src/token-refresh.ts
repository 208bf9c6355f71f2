// When to swap the connection's token (an `auth` frame on the open connection) so that it never
// reaches `expires_at`, where the gateway would close it with 4001.

/** A token with less than this left is not swapped: the 4001 at its expiry reconnects with a fresh one. */
export const REFRESH_MIN_REMAINING_MS = 1000;

/**
 * Milliseconds from `nowMs` until the swap, or null for no swap: `refreshBeforeExpiryMs` before
 * the expiry, but never before half the remaining lifetime, so that a token living less than the
 * margin (or a provider that hands out the same token again) cannot cause a swap loop; an
 * unparseable `expires_at` or a token about to expire gets none.
 */
export function refreshDelayMs(
  expiresAt: string,
  nowMs: number,
  refreshBeforeExpiryMs: number,
): number | null {
  const remaining = Date.parse(expiresAt) - nowMs;
  if (!Number.isFinite(remaining) || remaining < REFRESH_MIN_REMAINING_MS) return null;
  return Math.max(remaining - Math.max(refreshBeforeExpiryMs, 0), remaining / 2);
}

/** Whether a token expiring at `expiresAtMs` is still worth connecting with. */
export function tokenUsable(
  expiresAtMs: number | null,
  nowMs: number,
  refreshBeforeExpiryMs: number,
): boolean {
  return (
    expiresAtMs !== null && expiresAtMs - nowMs > Math.max(refreshBeforeExpiryMs, REFRESH_MIN_REMAINING_MS)
  );
}
