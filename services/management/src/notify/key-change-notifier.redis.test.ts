import { captureLogs } from '@lattice/core/testing';
import { expect } from 'chai';
import { createRedisKeyChangeNotifier, type RedisPublisher } from './key-change-notifier.redis.ts';

describe('Redis key change notifier', () => {
  const logs = captureLogs({ name: 't', level: 'warn' });
  const { logger } = logs;
  const change = {
    productId: 'p1',
    environment: 'development',
    keyIds: ['k1', 'k2'],
    change: 'imported',
  } as const;

  it("publishes on the environment's channel under the configured prefix", async () => {
    const sent: Array<[string, string]> = [];
    const redis: RedisPublisher = {
      publish: async (channel, message) => {
        sent.push([channel, message]);
        return 1;
      },
    };
    await createRedisKeyChangeNotifier({ redis, keyPrefix: 'pfx:', logger }).keyChanged(change);
    expect(sent).to.deep.equal([
      [
        'pfx:public-keys:changed:development',
        JSON.stringify({
          product_id: 'p1',
          environment: 'development',
          key_ids: ['k1', 'k2'],
          change: 'imported',
        }),
      ],
    ]);
  });

  it('logs a failed publish and never rejects', async () => {
    const redis: RedisPublisher = { publish: () => Promise.reject(new Error('connection is closed')) };
    await createRedisKeyChangeNotifier({ redis, keyPrefix: 'pfx:', logger }).keyChanged(change);
    expect(logs.text())
      .to.include('could not announce a public key change')
      .and.include('connection is closed');
  });

  it('refuses a prefix that cannot prefix a channel, at construction', () => {
    const redis: RedisPublisher = { publish: async () => 0 };
    expect(() => createRedisKeyChangeNotifier({ redis, keyPrefix: 'bad{', logger })).to.throw(TypeError);
  });
});
