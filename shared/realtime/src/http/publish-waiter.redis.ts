// PublishWaiter on Redis pub/sub: one subscriber connection per process (opened on the first
// watch), one SUBSCRIBE per channel that has watches, shared by them and dropped with the last
// one, as a gateway holds its channels. Each fan-out text of a watched channel is decoded with
// the realtime protocol's decoder and matched by message id. Only channels somebody waits on are
// subscribed, and only while they wait.
import type { Logger } from '@lattice/core';
import { decodeFanOutMessage } from '@lattice/realtime-protocol';
import { fanOutChannel, subscribeChannels } from '@lattice/redis';
import type { Redis } from 'ioredis';
import type { AppliedPlace, PublicationWatch, PublishWaiter } from './publish-waiter.ts';

export interface RedisPublishWaiterOptions {
  /** A connection of its own (it is put in subscriber mode), asked for on the first watch. */
  subscriber: () => Redis;
  /** `config.redisKeyPrefix`: the fan-out channels start with it. */
  keyPrefix: string;
  logger: Logger;
}

interface ChannelWatches {
  /** Resolvers of the watches by message id. */
  byMessage: Map<string, Set<(place: AppliedPlace) => void>>;
  count: number;
  /** The SUBSCRIBE in flight or done; null after it failed (the next watch tries again). */
  subscribed: Promise<unknown> | null;
}

export function createRedisPublishWaiter(opts: RedisPublishWaiterOptions): PublishWaiter {
  const log = opts.logger.child({ component: 'realtime-publish-waits' });
  const channels = new Map<string, ChannelWatches>();
  /** Channels whose UNSUBSCRIBE failed during an outage: dropped again once Redis is back. */
  const leftBehind = new Set<string>();
  let connection: Redis | undefined;

  const subscriber = (): Redis => {
    if (connection) return connection;
    const redis = opts.subscriber();
    connection = redis;
    redis.on('message', (redisChannel: string, text: string) => {
      const watches = channels.get(redisChannel);
      if (!watches) return;
      const message = decodeFanOutMessage(text);
      if (message?.type !== 'publication') return;
      const resolvers = watches.byMessage.get(message.entry.id);
      if (!resolvers) return;
      const place = { offset: message.entry.offset, epoch: message.entry.epoch };
      for (const resolve of resolvers) resolve(place);
    });
    redis.on('ready', () => {
      const stale = [...leftBehind].filter((name) => !channels.has(name));
      leftBehind.clear();
      if (stale.length === 0) return;
      redis.unsubscribe(...stale).catch((err: unknown) => {
        log.warn({ err }, 'unsubscribe after reconnect failed');
        for (const name of stale) leftBehind.add(name);
      });
    });
    return redis;
  };

  const release = (name: string, watches: ChannelWatches): void => {
    watches.count -= 1;
    if (watches.count > 0 || channels.get(name) !== watches) return;
    channels.delete(name);
    // One connection's commands run in order: a later SUBSCRIBE of this channel lands after it.
    connection?.unsubscribe(name).catch((err: unknown) => {
      log.warn({ err, name }, 'unsubscribe failed; retried when Redis is back');
      leftBehind.add(name);
    });
  };

  return {
    async watch(id, messageId) {
      const name = fanOutChannel(opts.keyPrefix, id);
      let watches = channels.get(name);
      if (!watches) {
        watches = { byMessage: new Map(), count: 0, subscribed: null };
        channels.set(name, watches);
      }
      const own = watches;
      own.count += 1;
      let resolveApplied!: (place: AppliedPlace) => void;
      const applied = new Promise<AppliedPlace>((resolve) => {
        resolveApplied = resolve;
      });
      let resolvers = own.byMessage.get(messageId);
      if (!resolvers) {
        resolvers = new Set();
        own.byMessage.set(messageId, resolvers);
      }
      resolvers.add(resolveApplied);
      let ended = false;
      const watch: PublicationWatch = {
        applied,
        end() {
          if (ended) return;
          ended = true;
          const set = own.byMessage.get(messageId);
          set?.delete(resolveApplied);
          if (set?.size === 0) own.byMessage.delete(messageId);
          release(name, own);
        },
      };
      try {
        let subscribed = own.subscribed;
        if (subscribed === null) {
          const pending = subscribeChannels(subscriber(), name);
          subscribed = pending;
          own.subscribed = pending;
          pending.catch(() => {
            if (own.subscribed === pending) own.subscribed = null;
          });
        }
        await subscribed;
      } catch (err) {
        watch.end();
        throw err;
      }
      return watch;
    },
    async close() {
      const names = [...channels.keys()];
      channels.clear();
      if (connection && names.length > 0) await connection.unsubscribe(...names).catch(() => undefined);
    },
  };
}
