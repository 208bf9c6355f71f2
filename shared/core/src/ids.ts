import { createHash, randomUUID } from 'node:crypto';

/** Opaque identifiers: UUID v4, optionally prefixed for readability (`prd_…`). */
export function newId(prefix?: string): string {
  return prefix ? `${prefix}_${randomUUID().replaceAll('-', '')}` : randomUUID();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/**
 * A name-based UUID (version 8, SHA-256, RFC 9562 appendix B.2) of `parts`: the same parts give
 * the same id, so something produced twice by design (a sweep repairing a crash, an MTA sending a
 * report again) carries one id that consumers deduplicate by.
 */
export function nameBasedUuid(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\n')).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
