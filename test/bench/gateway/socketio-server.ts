// socketio: Socket.IO with `@socket.io/redis-adapter` doing the same fan-out, the comparison the
// Lattice gateway is held to (≥ 1.5× its deliveries per second). The idiomatic way to feed a
// Socket.IO cluster from outside it is the Redis emitter (`@socket.io/redis-emitter`): the runner
// calls `emitter.to(channel).emit('message', push)` once per message (feed.ts), which PUBLISHes
// one adapter packet on `<key>#/#<channel>#`; this server's adapter (PSUBSCRIBE `<key>#/#*`)
// receives it and broadcasts it to the room's local sockets, encoding the packet once. Clients
// (websocket transport only) `emit('subscribe', channel, ack)` and the server joins them to the
// room named by the channel. The push object is the same as bare-ws's and the gateway's.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@lattice/core';
import { closeRedis, createRedis } from '@lattice/redis';
import { createAdapter } from '@socket.io/redis-adapter';
import { Server } from 'socket.io';
import { type RunningServer, runServerChild } from './server-child.ts';

runServerChild(async (args): Promise<RunningServer> => {
  const logger = createLogger({ name: 'bench-socketio', level: 'warn' });
  const pub = createRedis({ url: args.redisUrl, logger, name: 'bench-socketio-pub' });
  const sub = createRedis({ url: args.redisUrl, logger, name: 'bench-socketio-sub' });
  const key = `${args.redisKeyPrefix}socket.io`;
  const http = createServer();
  const io = new Server(http, {
    transports: ['websocket'],
    adapter: createAdapter(pub, sub, { key }),
    serveClient: false,
  });
  io.on('connection', (socket) => {
    socket.on('subscribe', (channel: unknown, ack: unknown) => {
      if (typeof channel !== 'string' || typeof ack !== 'function') return;
      void socket.join(channel);
      ack({ ok: true });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    ready: {
      url: `http://127.0.0.1:${port}`,
      feed: { kind: 'socketio-emitter', key },
      client: { protocol: 'socketio' },
    },
    async stop() {
      io.disconnectSockets(true);
      await io.close();
      await closeRedis(pub);
      await closeRedis(sub);
    },
  };
});
