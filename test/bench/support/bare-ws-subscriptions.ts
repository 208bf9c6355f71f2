// The subscribe side of the benchmarks' bare WebSocket servers (the gateway bench's bare-ws, the
// latency bench's bare pipeline): a client sends `{"id","action":"subscribe","channel"}` and gets
// `{"id","result":{}}` once Redis has confirmed the SUBSCRIBE; one SUBSCRIBE per Redis channel
// that has local clients, an UNSUBSCRIBE when the last of them goes. No auth, no gap checks, no
// limits.
import type { Redis } from 'ioredis';
import type { WebSocket, WebSocketServer } from 'ws';

/**
 * Answers the subscribe frames of `wss`'s connections, subscribing `sub` to `redisChannelOf` the
 * channel. Returns, per Redis channel, the local sockets subscribed to it: what a Redis message on
 * that channel is sent to.
 */
export function serveBareSubscriptions(
  wss: WebSocketServer,
  sub: Pick<Redis, 'subscribe' | 'unsubscribe'>,
  redisChannelOf: (channel: string) => string,
): ReadonlyMap<string, ReadonlySet<WebSocket>> {
  /** Redis channel → the local sockets subscribed to it. */
  const members = new Map<string, Set<WebSocket>>();
  /** Redis channel → its SUBSCRIBE, so a reply never precedes the subscription it promises. */
  const subscribed = new Map<string, Promise<unknown>>();
  wss.on('connection', (ws) => {
    const mine = new Set<string>();
    ws.on('message', (raw) => {
      let frame: { id?: unknown; action?: unknown; channel?: unknown };
      try {
        frame = JSON.parse(String(raw)) as typeof frame;
      } catch {
        ws.send('{"error":{"code":"invalid","message":"not JSON"}}');
        return;
      }
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
  return members;
}
