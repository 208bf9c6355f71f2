// bare-pipeline, part (c): a bare `ws` server fed by Redis pub/sub. A client sends
// `{"id","action":"subscribe","channel"}` and gets `{"id","result":{}}` once Redis has confirmed
// the SUBSCRIBE (one per channel with local clients); each Redis message is sent as it is to
// every local socket of its channel. No auth, no gap checks, no limits.
import { Redis } from 'ioredis';
import { type WebSocket, WebSocketServer } from 'ws';
import { runBareChild } from './bare-child.ts';

runBareChild(async (args) => {
  const sub = new Redis(args.redisUrl, { connectionName: 'bench-bare-gateway' });
  /** Redis channel → the local sockets subscribed to it. */
  const members = new Map<string, Set<WebSocket>>();
  /** Redis channel → its SUBSCRIBE, so a reply never precedes the subscription it promises. */
  const subscribed = new Map<string, Promise<unknown>>();

  sub.on('message', (redisChannel: string, text: string) => {
    const sockets = members.get(redisChannel);
    if (sockets === undefined) return;
    for (const ws of sockets) ws.send(text);
  });

  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
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
      const redisChannel = `${args.redisPrefix}${frame.channel}`;
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
    url: `ws://127.0.0.1:${port}`,
    async stop() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      sub.disconnect();
    },
  };
});
