// Every Redis key Lattice uses is built here, so the key space can be read (and audited) in one
// place. Layout: `<prefix><kind>:{<hash tag>}:<rest>`. The hash tag groups keys that a multi-key
// script must touch together into one cluster slot; for rate limits that is all windows of one
// bucket, so a future sliding-window script can read the current and previous window atomically.
// Pub/sub channel names are built here too (they need no hash tag: pub/sub ignores slots).
import { sha256Hex } from '@lattice/core';

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

/** A realtime channel as its pub/sub names spell it (structurally a realtime ChannelId). */
export interface RealtimeChannelRef {
  productId: string;
  environment: string;
  channel: string;
}

/**
 * Pub/sub channel of one realtime channel: `<prefix>rt:<product_id>:<environment>:<channel>`.
 * Nothing parses it back: gateways subscribe by building the same name.
 */
export function fanOutChannel(prefix: string, id: RealtimeChannelRef): string {
  return `${prefix}rt:${id.productId}:${id.environment}:${id.channel}`;
}

/**
 * PSUBSCRIBE pattern over the fan-out channels of one product and environment whose channel
 * name starts with `channelStart` (which must hold no glob characters: `*`, `?`, `[`).
 */
export function fanOutChannelPattern(
  prefix: string,
  productId: string,
  environment: string,
  channelStart = '',
): string {
  return `${fanOutChannel(prefix, { productId, environment, channel: channelStart })}*`;
}

/** Pub/sub channel of one connection's presence results: `<prefix>rt-result:<connection_id>`. */
export function presenceResultChannel(prefix: string, connectionId: string): string {
  return `${prefix}rt-result:${connectionId}`;
}

/**
 * PSUBSCRIBE pattern over the presence results of every connection id starting with
 * `connectionIdStart` (a gateway holds one for `<gateway_id>.`; no glob characters).
 */
export function presenceResultPattern(prefix: string, connectionIdStart = ''): string {
  return `${presenceResultChannel(prefix, connectionIdStart)}*`;
}

/** The four keys of one publish Idempotency-Key (idempotency-claim-4.lua and its siblings). */
export interface IdempotencyKeys {
  /** `{id, channel}` of the first publish under the key. */
  record: string;
  /** The owner publishing it right now. */
  lock: string;
  /** The message id once Kafka acknowledged it. */
  done: string;
  /** `{id, offset, epoch}` once the first publish was answered with where it was applied. */
  applied: string;
}

/**
 * `<prefix>rt-idem:{<product_id>:<environment>:<sha256(key)>}` and its `:lock`, `:done` and
 * `:applied` siblings, one hash tag so a script can touch them all in one cluster slot. The key
 * is the client's text: hashed, so its characters never reach the key space.
 */
export function realtimeIdempotencyKeys(
  prefix: string,
  productId: string,
  environment: string,
  idempotencyKey: string,
): IdempotencyKeys {
  assertKeyPrefix(prefix);
  const record = `${prefix}rt-idem:{${productId}:${environment}:${sha256Hex(idempotencyKey)}}`;
  return { record, lock: `${record}:lock`, done: `${record}:done`, applied: `${record}:applied` };
}

/**
 * The partition plans of Kafka topics (`lattice topics scale`): a hash of topic → plan JSON, the
 * sorted set of producing processes by heartbeat, and per plan version the set of producers that
 * acknowledged it. One hash tag, so the procedure's keys share a cluster slot.
 */
export function partitionPlanKeys(prefix: string) {
  assertKeyPrefix(prefix);
  return {
    plans: `${prefix}partition:{plans}:by-topic`,
    producers: `${prefix}partition:{plans}:producers`,
    acks: (topic: string, version: number) =>
      `${prefix}partition:{plans}:acks:${encodeKeyPart(topic)}:${version}`,
  };
}
