// The publish Idempotency-Key store against a Redis that accepts connections and never answers
// (a hung server, or one being failed over): a claim is refused within its call bound, so the
// publish answers 503 at once instead of after ioredis's reconnect attempts (docs/operations.md
// "Losing Redis").

import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { createLogger } from '@lattice/core';
import { createRedis } from '@lattice/redis';
import { expect } from 'chai';
import { createRedisIdempotencyStore } from './idempotency.ts';

describe('publish Idempotency-Key store and a Redis that does not answer', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  before(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses a claim once its call bound has passed, naming the step', async () => {
    const { port } = server.address() as AddressInfo;
    const redis = createRedis({
      url: `redis://127.0.0.1:${port}`,
      name: 'hung',
      logger: createLogger({ name: 'test', level: 'silent' }),
      // ioredis's own give-up would take far longer than the store's bound.
      connectTimeoutMs: 60_000,
    });
    try {
      const store = createRedisIdempotencyStore({ redis, keyPrefix: 'hung:', callTimeoutMs: 200 });
      const refusal = await store
        .claim({ productId: 'p', environment: 'production', key: 'k', channel: 'chat:a', newMessageId: 'm' })
        .then(
          () => null,
          (err: unknown) => err as Error,
        );
      expect(refusal?.message).to.equal('idempotency-claim: Redis did not answer within 200 ms');
    } finally {
      redis.disconnect();
    }
  });
});
