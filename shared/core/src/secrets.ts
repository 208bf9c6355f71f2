// Credentials are shown once and stored as SHA-256; every comparison is constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `prefix` + 32 hex characters from 128 random bits, e.g. `lpk_3f…`. */
export function mintSecret(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('hex')}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time equality of two strings; unequal lengths still take one digest comparison. */
export function constantTimeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

/** Splits `lpk_0123abcd…` into its prefix and hex body; null when the shape is wrong. */
export function parseSecret(value: string): { prefix: string; body: string } | null {
  const m = /^([a-z]{3})_([0-9a-f]{32})$/.exec(value);
  return m ? { prefix: `${m[1]}_`, body: m[2]! } : null;
}

/** What listings show: the first eight characters of the hex body. */
export function visiblePart(value: string): string {
  const parsed = parseSecret(value);
  return parsed ? parsed.body.slice(0, 8) : '';
}
