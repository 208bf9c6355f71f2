// bare-ws: the least a WebSocket fan-out from Redis pub/sub can do, the baseline the Lattice
// gateway is held to (≥ 0.7 of its deliveries per second). A `ws` server; a client sends
// `{"id","action":"subscribe","channel"}` and gets `{"id","result":{}}` once Redis confirmed the
// SUBSCRIBE; one SUBSCRIBE per channel that has local clients, on the channel the Lattice
// gateway would use (`fanOutChannel`). Per Redis message: parse the Lattice fan-out text once,
// build the push JSON once, send that string to every local socket of the channel. No auth, no
// gap checks, no limits, no send-buffer policing: what the gateway does beyond this is its cost.
import { createLogger } from '@lattice/core';
import { closeRedis, createRedis, fanOutChannel } from '@lattice/redis';
import { type WebSocket, WebSocketServer } from 'ws';
import { type RunningServer, runServerChild } from './server-child.ts';

interface Publication {
  type: string;
  channel: string;
  id: string;
  offset: number;
  epoch: string;
  name?: string;
  data?: unknown;
  published_at: string;
}

runServerChild(async (args): Promise<RunningServer> => {
  const logger = createLogger({ name: 'bench-bare-ws', level: 'warn' });
  const sub = createRedis({ url: args.redisUrl, logger, name: 'bench-bare-ws-sub' });
  /** Redis channel → the local sockets subscribed to it. */
  const members = new Map<string, Set<WebSocket>>();
  /** Redis channel → its SUBSCRIBE, so a reply never precedes the subscription it promises. */
  const subscribed = new Map<string, Promise<unknown>>();
  const redisChannelOf = (channel: string) =>
    fanOutChannel(args.redisKeyPrefix, { productId: args.productId, environment: 'production', channel });

  sub.on('message', (redisChannel: string, text: string) => {
    const sockets = members.get(redisChannel);
    if (sockets === undefined || sockets.size === 0) return;
    const m = JSON.parse(text) as Publication;
    if (m.type !== 'publication') return;
    const push = JSON.stringify({
      push: 'message',
      channel: m.channel,
      id: m.id,
      offset: m.offset,
      epoch: m.epoch,
      ...(m.name !== undefined ? { name: m.name } : {}),
      data: m.data,
      published_at: m.published_at,
    });
    for (const ws of sockets) ws.send(push);
  });

  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  wss.on('connection', (ws) => {
    const mine = new Set<string>();
    ws.on('message', (raw) => {
      const frame = JSON.parse(String(raw)) as { id: unknown; action: string; channel: string };
      if (frame.action !== 'subscribe' || typeof frame.channel !== 'string') {
        ws.send(JSON.stringify({ id: frame.id, error: { code: 'invalid', message: 'subscribe only' } }));
        return;
      }
      const redisChannel = redisChannelOf(frame.channel);
      let sockets = members.get(redisChannel);
      if (sockets === undefined) {
        sockets = new Set();
        members.set(redisChannel, sockets);
        subscribed.set(redisChannel, sub.subscribe(redisChannel));
      }
      sockets.add(ws);
      mine.add(redisChannel);
      const reply = JSON.stringify({ id: frame.id, result: {} });
      void subscribed.get(redisChannel)?.then(() => ws.send(reply));
    });
    ws.on('close', () => {
      for (const redisChannel of mine) {
        const sockets = members.get(redisChannel);
        sockets?.delete(ws);
        if (sockets?.size === 0) {
          members.delete(redisChannel);
          subscribed.delete(redisChannel);
          void sub.unsubscribe(redisChannel);
        }
      }
    });
  });
  const { port } = wss.address() as { port: number };
  return {
    ready: {
      url: `ws://127.0.0.1:${port}`,
      feed: { kind: 'lattice-fanout', redisKeyPrefix: args.redisKeyPrefix, productId: args.productId },
      client: { protocol: 'ws-json' },
    },
    async stop() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await closeRedis(sub);
    },
  };
});
