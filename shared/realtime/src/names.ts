// Channel names (`namespace:rest`), namespace names and grant patterns, exactly as the spec
// bounds them. Segments are separated by colons.

export const CHANNEL_NAME_MIN = 3;
export const CHANNEL_NAME_MAX = 128;
export const NAMESPACE_NAME_MAX = 64;
/** A grant pattern: a concrete namespace segment, then at most this many more segments. */
export const GRANT_EXTRA_SEGMENTS_MAX = 7;

const CHANNEL_RE = /^[a-zA-Z0-9._:-]+$/;
const NAMESPACE_RE = /^[a-zA-Z0-9._-]+$/;

export function isNamespaceName(value: string): boolean {
  return value.length >= 1 && value.length <= NAMESPACE_NAME_MAX && NAMESPACE_RE.test(value);
}

/** Why a channel name is invalid, or null when it is valid. */
export function channelNameProblem(value: string): string | null {
  if (value.length < CHANNEL_NAME_MIN || value.length > CHANNEL_NAME_MAX) {
    return `must be ${CHANNEL_NAME_MIN} to ${CHANNEL_NAME_MAX} characters`;
  }
  if (!CHANNEL_RE.test(value)) return 'may contain only letters, digits and . _ : -';
  const colon = value.indexOf(':');
  if (colon <= 0) return 'must start with a namespace segment followed by a colon (namespace:rest)';
  if (colon === value.length - 1) return 'must name something after the namespace (namespace:rest)';
  if (!isNamespaceName(value.slice(0, colon))) return 'has an invalid namespace segment';
  return null;
}

export function namespaceOf(channel: string): string {
  return channel.slice(0, channel.indexOf(':'));
}

/** Why a grant pattern is invalid, or null: concrete namespace, up to 7 more segments, `*` = one segment. */
export function grantPatternProblem(pattern: string): string | null {
  const segments = pattern.split(':');
  const [ns, ...rest] = segments;
  if (!ns || ns === '*' || !isNamespaceName(ns)) return 'must start with a concrete namespace segment';
  if (rest.length === 0) return 'must have at least one segment after the namespace';
  if (rest.length > GRANT_EXTRA_SEGMENTS_MAX)
    return `may have at most ${GRANT_EXTRA_SEGMENTS_MAX} segments after the namespace`;
  if (rest.some((s) => s === '' || (s !== '*' && !/^[a-zA-Z0-9._-]+$/.test(s))))
    return 'has an empty or invalid segment';
  return null;
}

/** `*` matches exactly one segment; everything else matches itself. */
export function grantMatches(pattern: string, channel: string): boolean {
  const p = pattern.split(':');
  const c = channel.split(':');
  return p.length === c.length && p.every((seg, i) => seg === '*' || seg === c[i]);
}
