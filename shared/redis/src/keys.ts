// Every Redis key Lattice uses is built here, so the key space can be read (and audited) in one
// place. Layout: `<prefix><kind>:{<hash tag>}:<rest>`. The hash tag groups keys that a multi-key
// script must touch together into one cluster slot; for rate limits that is all windows of one
// bucket, so a future sliding-window script can read the current and previous window atomically.

export const DEFAULT_KEY_PREFIX = 'lattice:';

// Bucket names are chosen by code, not by callers, so they are held to a narrow alphabet. That
// keeps the `:` separator unambiguous without encoding the (readable) names.
const BUCKET_NAME = /^[a-z0-9][a-z0-9_-]*$/i;

/** Throws unless `prefix` is usable as a key prefix (a brace would hijack every key's hash tag). */
export function assertKeyPrefix(prefix: string): void {
  if (/[{}\s]/.test(prefix)) {
    throw new TypeError(`redis key prefix must not contain braces or whitespace: ${JSON.stringify(prefix)}`);
  }
}

/**
 * Ids come from the outside world (IP addresses, product ids). Braces would move the hash tag,
 * `%` is the escape itself, and whitespace/control characters make keys unreadable in redis-cli;
 * those are percent-encoded. Colons are kept so IPv6 addresses stay legible: the id is always
 * followed by `}` and then a digits-only segment, so the key still parses unambiguously.
 */
export function encodeKeyPart(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we escape
  return value.replace(/[%{}\s\u0000-\u001f\u007f]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
    return `%${hex}`;
  });
}

function assertBucket(bucket: string): void {
  if (!BUCKET_NAME.test(bucket)) {
    throw new TypeError(`rate limit bucket name must match ${BUCKET_NAME}: ${JSON.stringify(bucket)}`);
  }
}

/**
 * Counter of one fixed window of one rate-limit bucket, e.g.
 * `lattice:rl:{per-ip:203.0.113.7}:1700000040000`.
 * `bucket` names the policy (`per-ip`, `publish`), `id` the thing limited (an IP, a product).
 */
export function rateLimitKey(prefix: string, bucket: string, id: string, windowStartMs: number): string {
  assertKeyPrefix(prefix);
  assertBucket(bucket);
  if (!Number.isSafeInteger(windowStartMs) || windowStartMs < 0) {
    throw new RangeError(`windowStartMs must be a non-negative integer: ${windowStartMs}`);
  }
  return `${prefix}rl:{${bucket}:${encodeKeyPart(id)}}:${windowStartMs}`;
}

/**
 * Pub/sub channel on which the management API announces public key changes of one edge
 * environment, so edges refresh their snapshot early instead of waiting for the next period.
 */
export function keyChangesChannel(prefix: string, environment: string): string {
  assertKeyPrefix(prefix);
  return `${prefix}public-keys:changed:${encodeKeyPart(environment)}`;
}
