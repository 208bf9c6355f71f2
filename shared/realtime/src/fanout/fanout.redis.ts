// FanOut on Redis pub/sub: one pipeline per delivery, so a channel's messages go out in order on
// one connection, and a gateway receives only the channels its clients subscribed to.
import type { Redis } from 'ioredis';
import {
  encodeFanOutMessage,
  encodePresenceResult,
  type FanOut,
  fanOutChannel,
  presenceResultChannel,
} from './fanout.ts';

export interface RedisFanOutOptions {
  redis: Redis;
  /** `config.redisKeyPrefix`: every pub/sub channel starts with it. */
  keyPrefix: string;
}

export function createRedisFanOut(opts: RedisFanOutOptions): FanOut {
  return {
    async deliver(id, messages, results) {
      if (messages.length === 0 && results.length === 0) return;
      const pipeline = opts.redis.pipeline();
      const channel = fanOutChannel(opts.keyPrefix, id);
      for (const m of messages) pipeline.publish(channel, encodeFanOutMessage(m));
      for (const r of results) {
        pipeline.publish(presenceResultChannel(opts.keyPrefix, r.connectionId), encodePresenceResult(r));
      }
      const replies = await pipeline.exec();
      if (replies === null) throw new Error('redis fan-out pipeline was discarded');
      for (const [err] of replies) if (err) throw err;
    },
  };
}
