// Idempotency-Key for publishes (decisions.md: the same key within 5 minutes publishes once).
// Three Redis keys per (product, environment, key), one hash tag so they share a cluster slot:
//   <prefix>rt-idem:{<scope>:<sha256(key)>}        {id, channel}: the message id for this key,
//                                                    created once with SET NX, lives ttlMs
//   …:lock   who is publishing it right now        SET NX PX leaseMs: concurrent duplicates
//                                                    never both produce
//   …:done   the id once it is durably in Kafka     a duplicate answers the same {id, channel}
// A publish that failed releases its lock and leaves the record: the retry publishes again
// under the SAME message id, so if the failed attempt did reach Kafka after all (a timeout is
// ambiguous), the channel actor drops the second copy by id. Duplicates that arrive while the
// first is in flight wait for it (up to waitMs) and answer what it answered.
import { randomUUID } from 'node:crypto';
import { type Environment, sha256Hex, sleep } from '@lattice/core';
import { assertKeyPrefix } from '@lattice/redis';
import type { Redis } from 'ioredis';
import { REALTIME_ERRORS } from './realtime-errors.ts';

export const IDEMPOTENCY_TTL_MS = 5 * 60_000;
export const IDEMPOTENCY_KEY_MAX = 255;

/** Why an Idempotency-Key header value is unusable, or null. */
export function idempotencyKeyProblem(value: string): string | null {
  if (value.length < 1 || value.length > IDEMPOTENCY_KEY_MAX)
    return `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`;
  if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value))
    return 'may contain only printable ASCII characters';
  return null;
}

export type IdempotencyClaim =
  | { kind: 'replay'; id: string; channel: string }
  | {
      kind: 'owner';
      /** The message id to publish under (the same on every retry with this key). */
      id: string;
      /** The publish is durably in Kafka: later duplicates answer {id, channel}. */
      complete(): Promise<void>;
      /** The publish failed: let a retry try again (same id). */
      release(): Promise<void>;
    };

export interface IdempotencyStore {
  claim(input: {
    productId: string;
    environment: Environment;
    key: string;
    channel: string;
    /** Used when this key was never seen. */
    newMessageId: string;
  }): Promise<IdempotencyClaim>;
}

export interface RedisIdempotencyStoreOptions {
  redis: Redis;
  keyPrefix: string;
  ttlMs?: number;
  /** How long one owner may hold the publish before a duplicate may take over. Default 15 000. */
  leaseMs?: number;
  /** How long a duplicate waits for an owner in flight. Default 12 000. */
  waitMs?: number;
  pollMs?: number;
}

interface IdemRecord {
  id: string;
  channel: string;
}

export function idempotencyRedisKey(
  keyPrefix: string,
  productId: string,
  environment: Environment,
  key: string,
) {
  assertKeyPrefix(keyPrefix);
  // The key is the client's text: hashed, so its characters never reach the key space.
  return `${keyPrefix}rt-idem:{${productId}:${environment}:${sha256Hex(key)}}`;
}

export function createRedisIdempotencyStore(opts: RedisIdempotencyStoreOptions): IdempotencyStore {
  const { redis } = opts;
  const ttlMs = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const leaseMs = opts.leaseMs ?? 15_000;
  const waitMs = opts.waitMs ?? 12_000;
  const pollMs = opts.pollMs ?? 20;

  async function recordOf(recKey: string, fresh: IdemRecord): Promise<IdemRecord | null> {
    const set = await redis.set(recKey, JSON.stringify(fresh), 'PX', ttlMs, 'NX');
    if (set === 'OK') return fresh;
    const text = await redis.get(recKey);
    return text === null ? null : (JSON.parse(text) as IdemRecord);
  }

  return {
    async claim(input) {
      const recKey = idempotencyRedisKey(opts.keyPrefix, input.productId, input.environment, input.key);
      const lockKey = `${recKey}:lock`;
      const doneKey = `${recKey}:done`;
      const owner = randomUUID();
      // Real time, not an injected clock: this is how long a caller waits.
      const deadline = Date.now() + waitMs;
      for (;;) {
        const rec = await recordOf(recKey, { id: input.newMessageId, channel: input.channel });
        if (rec === null) continue; // expired between SET NX and GET: claim afresh
        if (rec.channel !== input.channel) throw REALTIME_ERRORS.idempotencyKeyMismatch();
        // `done` holds the id it completed, so a done key outliving an expired record is never
        // mistaken for the new record's.
        if ((await redis.get(doneKey)) === rec.id)
          return { kind: 'replay', id: rec.id, channel: rec.channel };
        if ((await redis.set(lockKey, owner, 'PX', leaseMs, 'NX')) === 'OK') {
          // Completed between our check and the lock: answer it instead of publishing again.
          if ((await redis.get(doneKey)) === rec.id) {
            await redis.del(lockKey);
            return { kind: 'replay', id: rec.id, channel: rec.channel };
          }
          const releaseLock = async () => {
            // Only our own lock (a lease that ran out may have passed to someone else).
            if ((await redis.get(lockKey)) === owner) await redis.del(lockKey);
          };
          return {
            kind: 'owner',
            id: rec.id,
            async complete() {
              const remainingMs = await redis.pttl(recKey);
              await redis.set(doneKey, rec.id, 'PX', remainingMs > 0 ? remainingMs : ttlMs);
              await releaseLock();
            },
            release: releaseLock,
          };
        }
        if (Date.now() >= deadline) throw REALTIME_ERRORS.idempotencyKeyInUse();
        await sleep(pollMs);
      }
    },
  };
}
