// Live connections per token, across every gateway of the environment (docs/realtime-protocol.md
// "Close codes": at most GATEWAY_MAX_CONNECTIONS_PER_TOKEN, default 100; the next `auth` closes its
// connection with 4429). One leaked browser token must not open thousands of connections.
//
// Each token (by the SHA-256 of its text) has a sorted set in Redis whose members are the
// connections holding it and whose scores are when each hold lapses. Taking a slot drops lapsed
// holds and counts the rest in one script, so two gateways never both take the last slot. A
// gateway renews its connections' holds every third of LEASE_MS and removes a hold when its
// connection closes; a gateway that dies leaves holds that lapse within LEASE_MS, so its
// connections' slots come back on their own. Without Redis a slot is granted (the cap is a
// guard against abuse; refusing every connection while Redis is away would be the outage), with a
// warning in the log.
import { type Logger, type Scheduler, sha256Hex, type Timer } from '@lattice/core';
import type { Redis } from 'ioredis';

/** How long a hold lasts without renewal. */
export const LEASE_MS = 60_000;

export interface TokenSlots {
  /** Takes a slot of `token` for `connectionId`; false when the token's slots are all held. */
  acquire(token: string, connectionId: string): Promise<boolean>;
  /** Gives the slot back (the connection closed); nothing when it held none. */
  release(connectionId: string): void;
  close(): void;
}

const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[3]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

export function createTokenSlots(deps: {
  redis: Redis;
  keyPrefix: string;
  /** GATEWAY_MAX_CONNECTIONS_PER_TOKEN. */
  max: number;
  scheduler: Scheduler;
  logger: Logger;
}): TokenSlots {
  const held = new Map<string, string>(); // connection id → its token's key
  const keyOf = (token: string) => `${deps.keyPrefix}rt-token-conns:${sha256Hex(token)}`;

  const renew: Timer = deps.scheduler.setInterval(
    () => {
      if (held.size === 0) return;
      const until = deps.scheduler.nowMs() + LEASE_MS;
      const pipeline = deps.redis.pipeline();
      for (const [connectionId, key] of held) {
        pipeline.zadd(key, 'XX', until, connectionId);
        pipeline.pexpire(key, LEASE_MS);
      }
      pipeline
        .exec()
        .catch((err: unknown) => deps.logger.warn({ err }, 'renewing token connection slots failed'));
    },
    Math.floor(LEASE_MS / 3),
    { unref: true },
  );

  return {
    async acquire(token, connectionId) {
      const key = keyOf(token);
      const now = deps.scheduler.nowMs();
      let granted: unknown;
      try {
        granted = await deps.redis.eval(
          ACQUIRE,
          1,
          key,
          now,
          now + LEASE_MS,
          connectionId,
          deps.max,
          LEASE_MS,
        );
      } catch (err) {
        deps.logger.warn({ err }, 'token connection slots unavailable; the connection is let in');
        return true;
      }
      if (granted !== 1) return false;
      held.set(connectionId, key);
      return true;
    },
    release(connectionId) {
      const key = held.get(connectionId);
      if (key === undefined) return;
      held.delete(connectionId);
      deps.redis.zrem(key, connectionId).catch((err: unknown) => {
        // Its hold lapses within LEASE_MS anyway.
        deps.logger.debug({ err }, 'releasing a token connection slot failed');
      });
    },
    close() {
      deps.scheduler.clearTimer(renew);
    },
  };
}
