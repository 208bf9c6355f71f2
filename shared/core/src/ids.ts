import { randomUUID } from 'node:crypto';

/** Opaque identifiers: UUID v4, optionally prefixed for readability (`prd_…`). */
export function newId(prefix?: string): string {
  return prefix ? `${prefix}_${randomUUID().replaceAll('-', '')}` : randomUUID();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
