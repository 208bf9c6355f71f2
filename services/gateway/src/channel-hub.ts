// A gateway process's one Redis subscriber connection: one SUBSCRIBE per channel that has local
// subscribers, shared by them and dropped with the last one (DESIGN.md "Scaling"), and one
// pattern subscription for the presence results of this gateway's connections. Each fan-out text
// is decoded once and its push frame built once, however many local connections receive it.
import { performance } from 'node:perf_hooks';
import type { Logger } from '@lattice/core';
import type { ChannelId, RealtimeStages } from '@lattice/realtime';
import {
  decodeFanOutMessage,
  decodePresenceResult,
  type FanOutMessage,
  type PresenceResult,
} from '@lattice/realtime-protocol';
import { fanOutChannel, presenceResultPattern, subscribeChannels, subscribePatterns } from '@lattice/redis';
import type { Redis } from 'ioredis';

/** A fan-out message as local connections receive it. */
export interface HubMessage {
  message: FanOutMessage;
  /** The push frame's text, built on first use and shared by every receiver. */
  frame(): Buffer;
  /** The same as a whole WebSocket frame (header included), for writing to the socket as is. */
  wire(): Buffer;
}

/**
 * An unmasked, unfragmented text frame (RFC 6455 §5.2), built once per message rather than by
 * `ws` once per receiving socket.
 */
export function textFrame(payload: Buffer): Buffer {
  const length = payload.length;
  const headerBytes = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerBytes + length);
  frame[0] = 0x81; // FIN, opcode 1 (text)
  if (length < 126) frame[1] = length;
  else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  payload.copy(frame, headerBytes);
  return frame;
}

export type HubListener = (m: HubMessage) => void;

export interface ChannelHub {
  /** Adds a listener of the channel; resolves once Redis confirmed the channel's subscription. */
  join(ref: ChannelId, listener: HubListener): Promise<void>;
  leave(ref: ChannelId, listener: HubListener): void;
  /** Redis channels subscribed now. */
  channels(): number;
  /** Connected, with the presence results subscribed. */
  healthy(): boolean;
  /** Called after the subscriber connection came back: messages may have been missed meanwhile. */
  onResync(listener: () => void): void;
  close(): Promise<void>;
}

export interface ChannelHubOptions {
  /** A connection of its own: it is put in subscriber mode. */
  subscriber: Redis;
  keyPrefix: string;
  /** Connection ids of this gateway start with it; their presence results arrive here. */
  connectionIdPrefix: string;
  onPresenceResult(result: PresenceResult): void;
  logger: Logger;
  /**
   * Observes `received_pushed` (from Redis to the subscribers' sockets) and `accepted_pushed`
   * (from the publish request, by its published_at) once per publication this gateway pushed.
   */
  stages?: RealtimeStages;
}

const PUBLICATION_HEAD = '{"type":"publication",';

/** The push frame of a fan-out message, reusing the fan-out text where it can. */
export function pushFrameOf(text: string, m: FanOutMessage): string {
  if (m.type === 'publication') {
    // The publication text is the push with another first field: no re-serialization of data.
    if (text.startsWith(PUBLICATION_HEAD)) return `{"push":"message",${text.slice(PUBLICATION_HEAD.length)}`;
    const { entry } = m;
    const head = JSON.stringify({
      push: 'message',
      channel: m.channel,
      id: entry.id,
      offset: entry.offset,
      epoch: entry.epoch,
      ...(entry.name !== null ? { name: entry.name } : {}),
      published_at: new Date(entry.publishedAtMs).toISOString(),
      ...(entry.payload.kind === 'ref' ? { ref: entry.payload.ref } : {}),
    });
    return entry.payload.kind === 'data' ? `${head.slice(0, -1)},"data":${entry.payload.json}}` : head;
  }
  if (m.type === 'event') {
    const head = JSON.stringify({ push: 'event', channel: m.channel, from: m.from });
    return `${head.slice(0, -1)},"data":${m.dataJson}}`;
  }
  const head = JSON.stringify({
    push: 'presence',
    channel: m.channel,
    action: m.action,
    member: { identity: m.identity, connections: m.connections },
  });
  return `${head.slice(0, -2)},"info":${m.infoJson ?? 'null'}}}`;
}

export function createChannelHub(opts: ChannelHubOptions): ChannelHub {
  const { subscriber, keyPrefix } = opts;
  const log = opts.logger.child({ component: 'gateway-hub' });
  const { stages } = opts;
  const listeners = new Map<string, Set<HubListener>>();
  /** The SUBSCRIBE in flight or done per Redis channel. */
  const subscribed = new Map<string, Promise<unknown>>();
  const resyncs: Array<() => void> = [];
  let readyOnce = false;

  subscriber.on('message', (redisChannel: string, text: string) => {
    const set = listeners.get(redisChannel);
    if (!set || set.size === 0) return;
    const receivedAt = performance.now();
    const message = decodeFanOutMessage(text);
    if (message === null) {
      log.warn({ redisChannel }, 'dropped a fan-out text that is not a fan-out message');
      return;
    }
    let frame: Buffer | undefined;
    let wire: Buffer | undefined;
    const hubMessage: HubMessage = {
      message,
      frame: () => {
        frame ??= Buffer.from(pushFrameOf(text, message), 'utf8');
        return frame;
      },
      wire: () => {
        wire ??= textFrame(hubMessage.frame());
        return wire;
      },
    };
    for (const listener of [...set]) listener(hubMessage);
    if (stages && message.type === 'publication') {
      stages.observe('received_pushed', performance.now() - receivedAt);
      stages.observe('accepted_pushed', Date.now() - message.entry.publishedAtMs);
    }
  });
  subscriber.on('pmessage', (_pattern: string, _channel: string, text: string) => {
    const result = decodePresenceResult(text);
    if (result) opts.onPresenceResult(result);
  });
  // The presence results' pattern: subscribed at start and again whenever that failed (ioredis
  // resubscribes after a reconnect only what Redis had confirmed).
  const pattern = presenceResultPattern(keyPrefix, opts.connectionIdPrefix);
  let patternSubscribed = false;
  let presenceResults: Promise<unknown> = Promise.resolve();
  const subscribePattern = () => {
    presenceResults = subscribePatterns(subscriber, pattern).then(
      () => {
        patternSubscribed = true;
      },
      (err: unknown) => {
        patternSubscribed = false;
        log.error({ err }, 'presence result subscription failed; retried on the next use');
        throw err;
      },
    );
    presenceResults.catch(() => undefined);
    return presenceResults;
  };
  subscribePattern();

  /** Channels whose UNSUBSCRIBE failed during an outage. */
  const leftBehind = new Set<string>();

  subscriber.on('ready', () => {
    if (!patternSubscribed) subscribePattern();
    const stale = [...leftBehind].filter((name) => !listeners.has(name));
    leftBehind.clear();
    if (stale.length > 0) {
      subscriber.unsubscribe(...stale).catch((err: unknown) => {
        log.warn({ err }, 'unsubscribe after reconnect failed');
        for (const name of stale) leftBehind.add(name);
      });
    }
    if (!readyOnce) {
      readyOnce = true;
      return;
    }
    // ioredis subscribes again by itself after a reconnect, before anything sent now: once this
    // PING answers, the channels are subscribed again, and what was published meanwhile is
    // found by the subscriptions reading history after their cursors.
    subscriber.ping().then(
      () => {
        for (const r of resyncs) r();
      },
      (err: unknown) => log.warn({ err }, 'resync after a reconnect failed'),
    );
  });

  return {
    async join(ref, listener) {
      const name = fanOutChannel(keyPrefix, ref);
      let set = listeners.get(name);
      if (!set) {
        set = new Set();
        listeners.set(name, set);
      }
      set.add(listener);
      let pending = subscribed.get(name);
      if (!pending) {
        pending = subscribeChannels(subscriber, name);
        subscribed.set(name, pending);
        // A failed SUBSCRIBE is forgotten, so the next join tries again.
        pending.catch(() => {
          if (subscribed.get(name) === pending) subscribed.delete(name);
        });
      }
      try {
        await Promise.all([pending, patternSubscribed ? undefined : subscribePattern()]);
      } catch (err) {
        this.leave(ref, listener);
        throw err;
      }
    },
    leave(ref, listener) {
      const name = fanOutChannel(keyPrefix, ref);
      const set = listeners.get(name);
      if (!set?.delete(listener) || set.size > 0) return;
      listeners.delete(name);
      subscribed.delete(name);
      // Redis handles one connection's commands in order: a later SUBSCRIBE of the same channel
      // lands after this UNSUBSCRIBE.
      subscriber.unsubscribe(name).catch((err: unknown) => {
        // Redis may have the subscription still, and ioredis would restore it on reconnect:
        // it is dropped again once the connection is back, unless someone joined meanwhile.
        log.warn({ err, name }, 'unsubscribe failed; retried when Redis is back');
        leftBehind.add(name);
      });
    },
    channels: () => listeners.size,
    healthy: () => subscriber.status === 'ready' && patternSubscribed,
    onResync(listener) {
      resyncs.push(listener);
    },
    async close() {
      const names = [...listeners.keys()];
      listeners.clear();
      subscribed.clear();
      // The connection is its owner's to close; it is left with no subscription of this hub.
      await Promise.allSettled([
        ...(names.length > 0 ? [subscriber.unsubscribe(...names)] : []),
        subscriber.punsubscribe(pattern),
      ]);
    },
  };
}
