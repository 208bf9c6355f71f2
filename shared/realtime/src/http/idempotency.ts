// Idempotency-Key for publishes (docs/realtime-http.md "Idempotency-Key": the same key within 5
// minutes publishes once). Four Redis keys per (product, environment, key), one hash tag so they
// share a cluster slot (built by realtimeIdempotencyKeys in @lattice/redis keys.ts):
//   <prefix>rt-idem:{<scope>:<sha256(key)>}        {id, channel}: the message id for this key,
//                                                    created once with SET NX, lives ttlMs
//   …:lock   who is publishing it right now        SET NX PX leaseMs: concurrent duplicates
//                                                    never both produce
//   …:done   the id once it is durably in Kafka     a duplicate answers the same {id, channel}
//   …:applied  {id, offset, epoch} once the first  a duplicate answers the same 201
//            was answered with them (a publish
//            that waited for its offset)
// A publish that failed releases its lock and leaves the record: the retry publishes again
// under the SAME message id, so if the failed attempt did reach Kafka after all (a timeout is
// ambiguous), the channel actor drops the second copy by id. Duplicates that arrive while the
// first is in flight wait for it (up to waitMs) and answer what it answered.
// Each step is one Lua script (one round trip, atomic) instead of two to four commands each:
// claim = create-or-read the record, check the channel, check done (and read applied), take the
// lock; complete = write done for the record's remaining lifetime and release our lock; release =
// our lock only; applied = write applied for the record's remaining lifetime.
import { randomUUID } from 'node:crypto';
import { type Environment, sleep } from '@lattice/core';
import { boundedCall, realtimeIdempotencyKeys, runScript } from '@lattice/redis';

export { IDEMPOTENCY_KEY_MAX, idempotencyKeyProblem } from '@lattice/http';

import type { Redis } from 'ioredis';
import type { AppliedPlace } from './publish-waiter.ts';
import { REALTIME_ERRORS } from './realtime-errors.ts';

export const IDEMPOTENCY_TTL_MS = 5 * 60_000;
export type IdempotencyClaim =
  | {
      kind: 'replay';
      id: string;
      channel: string;
      /** Where the message was applied, when the first publish was answered with it. */
      applied: AppliedPlace | null;
    }
  | {
      kind: 'owner';
      /** The message id to publish under (the same on every retry with this key). */
      id: string;
      /** The publish is durably in Kafka: later duplicates answer {id, channel}. */
      complete(): Promise<void>;
      /** The publish failed: let a retry try again (same id). */
      release(): Promise<void>;
      /** The publish is answered with where it was applied: later duplicates answer the same. */
      recordApplied(place: AppliedPlace): Promise<void>;
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
  /**
   * One Redis call's bound (default 1 000 ms): while Redis is down or hung, a publish with a key is
   * refused this soon (503 publish_unavailable) rather than after ioredis's reconnect attempts.
   */
  callTimeoutMs?: number;
}

interface IdemRecord {
  id: string;
  channel: string;
}

interface AppliedRecord extends AppliedPlace {
  id: string;
}

/** The applied record of message `id`, or null (none, or another message's, or unreadable). */
function appliedOf(text: string, id: string): AppliedPlace | null {
  if (text === '') return null;
  try {
    const a = JSON.parse(text) as Partial<AppliedRecord>;
    if (a.id !== id || typeof a.offset !== 'number' || typeof a.epoch !== 'string') return null;
    return { offset: a.offset, epoch: a.epoch };
  } catch {
    return null;
  }
}

export function createRedisIdempotencyStore(opts: RedisIdempotencyStoreOptions): IdempotencyStore {
  const { redis } = opts;
  const ttlMs = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const leaseMs = opts.leaseMs ?? 15_000;
  const waitMs = opts.waitMs ?? 12_000;
  const pollMs = opts.pollMs ?? 20;
  const callTimeoutMs = opts.callTimeoutMs ?? 1_000;
  const script = (name: string, keys: string[], args: Array<string | number>) =>
    boundedCall(runScript(redis, name, keys, args), callTimeoutMs, name);

  return {
    async claim(input) {
      const {
        record: recKey,
        lock: lockKey,
        done: doneKey,
        applied: appliedKey,
      } = realtimeIdempotencyKeys(opts.keyPrefix, input.productId, input.environment, input.key);
      const owner = randomUUID();
      // Real time, not an injected clock: this is how long a caller waits.
      const deadline = Date.now() + waitMs;
      const fresh = JSON.stringify({ id: input.newMessageId, channel: input.channel } satisfies IdemRecord);
      for (;;) {
        const [status, text, appliedText] = (await script(
          'idempotency-claim',
          [recKey, lockKey, doneKey, appliedKey],
          [fresh, ttlMs, owner, leaseMs, input.channel],
        )) as [string, string, string];
        const rec = JSON.parse(text) as IdemRecord;
        if (status === 'mismatch') throw REALTIME_ERRORS.idempotencyKeyMismatch();
        // `done` holds the id it completed, so a done key outliving an expired record is never
        // mistaken for the new record's (the script compares it with the record's id).
        if (status === 'replay') {
          return {
            kind: 'replay',
            id: rec.id,
            channel: rec.channel,
            applied: appliedOf(appliedText, rec.id),
          };
        }
        if (status === 'owner') {
          return {
            kind: 'owner',
            id: rec.id,
            async complete() {
              await script('idempotency-complete', [recKey, lockKey, doneKey], [rec.id, ttlMs, owner]);
            },
            // Only our own lock (a lease that ran out may have passed to someone else).
            release: async () => {
              await script('idempotency-release', [lockKey], [owner]);
            },
            async recordApplied(place) {
              const applied: AppliedRecord = { id: rec.id, offset: place.offset, epoch: place.epoch };
              await script('idempotency-applied', [recKey, appliedKey], [rec.id, JSON.stringify(applied)]);
            },
          };
        }
        if (Date.now() >= deadline) throw REALTIME_ERRORS.idempotencyKeyInUse();
        await sleep(pollMs);
      }
    },
  };
}
