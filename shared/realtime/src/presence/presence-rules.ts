// Presence bounds from the spec (Limits → Presence, Presence member): at most 100 members
// (distinct identities) per channel, info at most 10 240 bytes serialized, entry lifetime 1 to
// 3600 seconds with 60 as the default.

export const PRESENCE_MAX_MEMBERS = 100;
export const PRESENCE_INFO_MAX_BYTES = 10_240;
export const PRESENCE_TTL_MIN_SECONDS = 1;
export const PRESENCE_TTL_MAX_SECONDS = 3600;
export const PRESENCE_TTL_DEFAULT_SECONDS = 60;

/** Why `infoJson` (serialized info, or null for none) is refused, or null when it is fine. */
export function presenceInfoProblem(infoJson: string | null): string | null {
  if (infoJson === null) return null;
  const bytes = Buffer.byteLength(infoJson, 'utf8');
  if (bytes > PRESENCE_INFO_MAX_BYTES) {
    return `presence info is ${bytes} bytes serialized; at most ${PRESENCE_INFO_MAX_BYTES} are allowed`;
  }
  try {
    JSON.parse(infoJson);
  } catch {
    return 'presence info is not valid JSON';
  }
  return null;
}

export function presenceTtlProblem(ttlSeconds: number): string | null {
  if (
    !Number.isInteger(ttlSeconds) ||
    ttlSeconds < PRESENCE_TTL_MIN_SECONDS ||
    ttlSeconds > PRESENCE_TTL_MAX_SECONDS
  ) {
    return `presence lifetime must be ${PRESENCE_TTL_MIN_SECONDS} to ${PRESENCE_TTL_MAX_SECONDS} seconds`;
  }
  return null;
}

/** One roster member: the identity's connections, deduplicated. */
export interface PresenceMember {
  identity: string;
  connections: number;
  info: unknown;
}

/** Groups live connection entries by identity, sorted by identity. */
export function membersOf(
  entries: Iterable<{ identity: string; infoJson: string | null }>,
): PresenceMember[] {
  const byIdentity = new Map<string, { connections: number; infoJson: string | null }>();
  for (const e of entries) {
    const m = byIdentity.get(e.identity);
    if (m) m.connections += 1;
    else byIdentity.set(e.identity, { connections: 1, infoJson: e.infoJson });
  }
  return [...byIdentity]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([identity, m]) => ({
      identity,
      connections: m.connections,
      info: m.infoJson === null ? null : (JSON.parse(m.infoJson) as unknown),
    }));
}
