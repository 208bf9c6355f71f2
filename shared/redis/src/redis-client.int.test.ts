import { sleep } from '@lattice/core';
import { captureLogs, LEVEL } from '@lattice/core/testing';
import { expect } from 'chai';
import { closeRedis, createRedis } from './redis-client.ts';
import { startTcpProxy, type TcpProxy } from './testing/tcp-proxy.ts';
import { CLOSED_REDIS_URL, TEST_REDIS_URL } from './testing/test-redis.ts';

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('createRedis (Redis)', () => {
  it('connects under its name and closes gracefully', async () => {
    const { logger } = captureLogs();
    const redis = createRedis({ url: TEST_REDIS_URL, logger, name: 'edge limits' });
    expect(await redis.ping()).to.equal('PONG');
    expect(await redis.client('GETNAME')).to.equal('edge-limits');
    await closeRedis(redis);
    expect(redis.status).to.equal('end');
    await closeRedis(redis);
  });

  it('fails a command fast and logs once per outage, not once per reconnect attempt', async () => {
    const logs = captureLogs();
    const redis = createRedis({ url: CLOSED_REDIS_URL, logger: logs.logger, name: 'down' });
    let attempts = 0;
    redis.on('error', () => {
      attempts += 1;
    });
    try {
      const started = Date.now();
      let error: unknown;
      await redis.ping().catch((err: unknown) => {
        error = err;
      });
      expect(error).to.be.instanceOf(Error);
      // A bound only a broken client misses (one that queues the command until a reconnect).
      expect(Date.now() - started).to.be.lessThan(5_000);
      await until(() => attempts >= 4);
      const errors = logs.at(LEVEL.error);
      expect(errors).to.have.length(1);
      expect(errors[0]).to.deep.include({
        redis: 'down',
        msg: 'redis connection failed; reconnecting with backoff',
      });
      // The URL may carry a password; it never reaches a log line.
      expect(JSON.stringify(logs.lines)).to.not.contain('127.0.0.1:1/');
    } finally {
      const closing = Date.now();
      await closeRedis(redis);
      expect(Date.now() - closing, 'closing does not wait for a reconnect').to.be.lessThan(3_000);
    }
  });

  describe('through an outage', () => {
    let proxy: TcpProxy;
    before(async () => {
      const target = new URL(TEST_REDIS_URL);
      proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    });
    after(async () => {
      await proxy.close();
    });

    it('reconnects by itself and logs the loss and the recovery once each', async () => {
      const logs = captureLogs();
      const redis = createRedis({
        url: `redis://127.0.0.1:${proxy.port}`,
        logger: logs.logger,
        name: 'proxied',
        reconnectMaxMs: 200,
      });
      try {
        expect(await redis.ping()).to.equal('PONG');
        await proxy.stop();
        let attempts = 0;
        redis.on('error', () => {
          attempts += 1;
        });
        await until(() => attempts >= 3);
        await proxy.start();
        await until(() => redis.status === 'ready');
        expect(await redis.ping()).to.equal('PONG');
        expect(logs.at(LEVEL.error)).to.have.length(1);
        const restored = logs.at(LEVEL.info);
        expect(restored).to.have.length(1);
        expect(restored[0]).to.deep.include({ msg: 'redis connection restored' });
        expect(restored[0]?.failedAttempts).to.be.at.least(3);
      } finally {
        await closeRedis(redis);
      }
    });
  });
});
