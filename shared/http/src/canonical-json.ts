// Canonical JSON (object keys sorted at every depth) so equal values hash equally regardless of
// the order in which a document was assembled.
import { createHash } from 'node:crypto';

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** First `length` hex characters of the SHA-256 of the canonical JSON of `value`. */
export function shortHash(value: unknown, length = 12): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex').slice(0, length);
}
