// bare-pipeline, part (c): a bare `ws` server fed by Redis pub/sub. A client sends
// `{"id","action":"subscribe","channel"}` and gets `{"id","result":{}}` once Redis has confirmed
// the SUBSCRIBE (one per channel with local clients: serveBareSubscriptions); each Redis message
// is sent as it is to every local socket of its channel. No auth, no gap checks, no limits.
import { Redis } from 'ioredis';
import { WebSocketServer } from 'ws';
import { serveBareSubscriptions } from '../support/bare-ws-subscriptions.ts';
import { runBareChild } from './bare-child.ts';

runBareChild(async (args) => {
  const sub = new Redis(args.redisUrl, { connectionName: 'bench-bare-gateway' });
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const members = serveBareSubscriptions(wss, sub, (channel) => `${args.redisPrefix}${channel}`);
  sub.on('message', (redisChannel: string, text: string) => {
    const sockets = members.get(redisChannel);
    if (sockets === undefined) return;
    for (const ws of sockets) ws.send(text);
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
