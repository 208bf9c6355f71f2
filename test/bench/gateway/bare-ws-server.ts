// bare-ws: the least a WebSocket fan-out from Redis pub/sub can do, the baseline the Lattice
// gateway is held to (≥ 0.7 of its deliveries per second). A `ws` server; a client sends
// `{"id","action":"subscribe","channel"}` and gets `{"id","result":{}}` once Redis confirmed the
// SUBSCRIBE; one SUBSCRIBE per channel that has local clients (serveBareSubscriptions), on the
// channel the Lattice gateway would use (`fanOutChannel`). Per Redis message: parse the Lattice
// fan-out text once, build the push JSON once, send that string to every local socket of the
// channel. No auth, no gap checks, no limits, no send-buffer policing: what the gateway does
// beyond this is its cost.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@lattice/core';
import { encodeFanOutMessage } from '@lattice/realtime-protocol';
import { closeRedis, createRedis, fanOutChannel } from '@lattice/redis';
import { WebSocketServer } from 'ws';
import { serveBareSubscriptions } from '../support/bare-ws-subscriptions.ts';
import type { PublishHook } from './messages.ts';
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
  const redisChannelOf = (channel: string) =>
    fanOutChannel(args.redisKeyPrefix, { productId: args.productId, environment: 'production', channel });
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const members = serveBareSubscriptions(wss, sub, redisChannelOf);
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
  const { port } = wss.address() as { port: number };
  const publisher = args.publishHook ? await publishEndpoint(args.redisUrl, redisChannelOf) : null;
  return {
    ready: {
      url: `ws://127.0.0.1:${port}`,
      feed: { kind: 'lattice-fanout', redisKeyPrefix: args.redisKeyPrefix, productId: args.productId },
      client: { protocol: 'ws-json' },
      ...(publisher ? { publish: publisher.hook } : {}),
    },
    async stop() {
      publisher?.http.close();
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await closeRedis(sub);
      if (publisher) await closeRedis(publisher.pub);
    },
  };
});

/**
 * The reference publish hook (BENCH_LATENCY_VARIANTS=bare-ws): `POST {channel, data}` publishes
 * the fan-out encoding at once, with the next offset of the channel, and answers 202. No Kafka,
 * no history: the floor under the platform's publish-to-browser latency on this machine.
 */
async function publishEndpoint(redisUrl: string, redisChannelOf: (channel: string) => string) {
  const pub = createRedis({
    url: redisUrl,
    logger: createLogger({ name: 'bench-bare-ws-pub', level: 'warn' }),
    name: 'bench-bare-ws-pub',
  });
  const offsets = new Map<string, number>();
  const epoch = `bare-${Date.now()}`;
  const http: HttpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { channel: string; data: unknown };
      const offset = (offsets.get(body.channel) ?? 0) + 1;
      offsets.set(body.channel, offset);
      const text = encodeFanOutMessage({
        type: 'publication',
        channel: body.channel,
        entry: {
          id: `m${offset}`,
          offset,
          epoch,
          name: null,
          payload: { kind: 'data', json: JSON.stringify(body.data) },
          publishedAtMs: Date.now(),
        },
      });
      pub.publish(redisChannelOf(body.channel), text).then(
        () => res.writeHead(202).end(),
        () => res.writeHead(503).end(),
      );
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const hook: PublishHook = {
    publishUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}/messages`,
    headers: { 'content-type': 'application/json' },
  };
  return { http, pub, hook };
}
