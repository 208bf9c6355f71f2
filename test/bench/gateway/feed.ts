// The fan-out feed: what the runner publishes on Redis for one variant. The payload of message
// `offset` on a channel is the same for every variant; what differs is the envelope each server's
// own Redis path expects:
//   lattice-fanout    the Lattice fan-out encoding (encodeFanOutMessage: a publication with the
//                     history entry, offsets dense from 1 per channel, one epoch per run) on
//                     `fanOutChannel(prefix, {productId, environment: 'production', channel})`,
//                     as a channel actor publishes it; the lattice and bare-ws servers read it.
//   socketio-emitter  `emitter.to(channel).emit('message', push)` with @socket.io/redis-emitter:
//                     the push object (what bare-ws builds from the fan-out text) in one adapter
//                     packet, one PUBLISH per message, as a Socket.IO cluster is fed from outside.
// Both go through one ioredis connection with auto-pipelining, so the feed costs the two paths
// alike: PUBLISHes issued in the same event-loop turn leave in one write.
import { encodeFanOutMessage, type FanOutEntry } from '@lattice/realtime-protocol';
import { fanOutChannel } from '@lattice/redis';
import { Emitter } from '@socket.io/redis-emitter';
import { Redis } from 'ioredis';
import type { FeedTarget } from './messages.ts';

export interface Feed {
  /** Publishes message `offset` of `channel` (fire and forget; errors fail the run). */
  publish(channel: string, offset: number): void;
  /** The Redis server's CPU time so far (INFO cpu), in microseconds. */
  redisCpuUs(): Promise<number>;
  close(): Promise<void>;
}

/** The data every message carries: a small JSON object, like a typical realtime update. */
const payloadJson = (offset: number) => `{"n":${offset},"text":"hello from the gateway benchmark"}`;

export function entryOf(offset: number, epoch: string, publishedAtMs: number): FanOutEntry {
  return {
    id: `m${offset}`,
    offset,
    epoch,
    name: null,
    payload: { kind: 'data', json: payloadJson(offset) },
    publishedAtMs,
  };
}

export function createFeed(redisUrl: string, target: FeedTarget, epoch: string): Feed {
  const redis = new Redis(redisUrl, { enableAutoPipelining: true, connectionName: 'bench-gateway-feed' });
  let failure: unknown;
  const fail = (err: unknown) => {
    failure ??= err;
  };
  redis.on('error', fail);
  const redisCpuUs = async () => {
    const info = await redis.info('cpu');
    const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
    return (field('used_cpu_sys') + field('used_cpu_user')) * 1e6;
  };
  const check = () => {
    if (failure !== undefined) throw failure;
  };
  if (target.kind === 'lattice-fanout') {
    const names = new Map<string, string>();
    const nameOf = (channel: string) => {
      let name = names.get(channel);
      if (name === undefined) {
        name = fanOutChannel(target.redisKeyPrefix, {
          productId: target.productId,
          environment: 'production',
          channel,
        });
        names.set(channel, name);
      }
      return name;
    };
    return {
      publish(channel, offset) {
        check();
        const text = encodeFanOutMessage({
          type: 'publication',
          channel,
          entry: entryOf(offset, epoch, Date.now()),
        });
        redis.publish(nameOf(channel), text).catch(fail);
      },
      redisCpuUs,
      close: () => redis.quit().then(() => undefined),
    };
  }
  const emitter = new Emitter(redis, { key: target.key });
  return {
    publish(channel, offset) {
      check();
      const e = entryOf(offset, epoch, Date.now());
      emitter.to(channel).emit('message', {
        push: 'message',
        channel,
        id: e.id,
        offset,
        epoch,
        data: JSON.parse(payloadJson(offset)) as unknown,
        published_at: new Date(e.publishedAtMs).toISOString(),
      });
    },
    redisCpuUs,
    close: () => redis.quit().then(() => undefined),
  };
}
