// FanOut on Redis pub/sub: a channel's messages go out in order on one connection, and a gateway
// receives only the channels its clients subscribed to. Deliveries asked for in the same event-
// loop turn (the actor host applies a batch's keys concurrently, and their group-committed
// history lands together) share one pipeline, so one write carries them all instead of one per
// channel; each delivery's commands stay contiguous and in order, and each delivery succeeds or
// fails on its own replies.

import { createTurnBatcher } from '@lattice/core';
import { fanOutChannel, presenceResultChannel } from '@lattice/redis';
import type { Redis } from 'ioredis';
import { encodeFanOutMessage, encodePresenceResult, type FanOut } from './fanout.ts';

export interface RedisFanOutOptions {
  redis: Redis;
  /** `config.redisKeyPrefix`: every pub/sub channel starts with it. */
  keyPrefix: string;
}

interface Delivery {
  commands: Array<[channel: string, text: string]>;
  resolve(): void;
  reject(err: unknown): void;
}

export function createRedisFanOut(opts: RedisFanOutOptions): FanOut {
  async function flush(group: Delivery[]): Promise<void> {
    const pipeline = opts.redis.pipeline();
    for (const d of group) for (const [channel, text] of d.commands) pipeline.publish(channel, text);
    let replies: Awaited<ReturnType<typeof pipeline.exec>>;
    try {
      replies = await pipeline.exec();
    } catch (err) {
      for (const d of group) d.reject(err);
      return;
    }
    if (replies === null) {
      const err = new Error('redis fan-out pipeline was discarded');
      for (const d of group) d.reject(err);
      return;
    }
    let at = 0;
    for (const d of group) {
      const own = replies.slice(at, at + d.commands.length);
      at += d.commands.length;
      const failed = own.find(([err]) => err);
      if (failed) d.reject(failed[0]);
      else d.resolve();
    }
  }

  const waiting = createTurnBatcher<Delivery>((group) => void flush(group));

  return {
    deliver(id, messages, results) {
      if (messages.length === 0 && results.length === 0) return Promise.resolve();
      const channel = fanOutChannel(opts.keyPrefix, id);
      const commands: Delivery['commands'] = [];
      for (const m of messages) commands.push([channel, encodeFanOutMessage(m)]);
      for (const r of results) {
        commands.push([presenceResultChannel(opts.keyPrefix, r.connectionId), encodePresenceResult(r)]);
      }
      return new Promise<void>((resolve, reject) => {
        waiting.add({ commands, resolve, reject });
      });
    },
  };
}
