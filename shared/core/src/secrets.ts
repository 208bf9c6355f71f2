// Credentials are shown once and stored as SHA-256; every comparison is constant time.
// Hashing uses the one-shot crypto.hash(): no Hash object per call for the garbage collector to
// finalise, which matters on the public edge, where every keyed request hashes its key.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `prefix` + 32 hex characters from 128 random bits, e.g. `lpk_3f…`. */
export function mintSecret(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('hex')}`;
}

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time equality of two strings; unequal lengths still take one digest comparison. */
export function constantTimeEqual(a: string, b: string): boolean {
  const da = hash('sha256', a, 'buffer');
  const db = hash('sha256', b, 'buffer');
  return timingSafeEqual(da, db) && a.length === b.length;
}

/**
 * Constant-time equality of two short strings, without hashing: every character is compared
 * whatever the earlier ones held, so the time depends on the lengths only (which, for keys of a
 * fixed shape, reveal nothing). For comparing a presented value with one presented before;
 * stored secrets are compared as digests (sha256HexEqual).
 */
export function sameStringConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

// Scratch space for sha256HexEqual: JavaScript runs one call at a time and the comparison never
// yields, so two fixed buffers serve every call without allocating.
const SHA256_BYTES = 32;
const scratchA = Buffer.alloc(SHA256_BYTES);
const scratchB = Buffer.alloc(SHA256_BYTES);

/**
 * Constant-time equality of two SHA-256 digests given as hex (as stored and as sha256Hex
 * returns them): the 32 bytes are compared with timingSafeEqual, nothing is hashed again. A value
 * that is not 64 hex characters is unequal to everything.
 */
export function sha256HexEqual(a: string, b: string): boolean {
  if (a.length !== SHA256_BYTES * 2 || b.length !== SHA256_BYTES * 2) return false;
  // write() stops at the first non-hex pair; a short write means a malformed digest.
  const wroteA = scratchA.write(a, 'hex');
  const wroteB = scratchB.write(b, 'hex');
  // Both checks run whatever the bytes hold, so the time does not depend on where they differ.
  const equal = timingSafeEqual(scratchA, scratchB);
  return equal && wroteA === SHA256_BYTES && wroteB === SHA256_BYTES;
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
