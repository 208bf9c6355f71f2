// Subscribing while the connection is mid-handshake, against a real Redis: sent at once (as a
// plain ioredis subscribe is), it breaks the ready check and the connection is dropped; sent
// through subscribeChannels / subscribePatterns, it waits for the handshake and works.
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { closeRedis, createRedis } from './redis-client.ts';
import { subscribeChannels, subscribePatterns } from './subscribe.ts';

const config = testConfig();
const logger = createLogger({ name: 'subscribe-test', level: 'silent' });

/** A new connection whose `subscribe` runs in the handshake window (its 'connect' event). */
function connectingWith(subscribe: (redis: Redis) => Promise<unknown>) {
  const redis = createRedis({ url: config.redisUrl, logger, name: uniqueName('sub') });
  const errors: string[] = [];
  redis.on('error', (err: Error) => errors.push(err.message));
  const subscribed = new Promise<unknown>((resolve, reject) => {
    redis.once('connect', () => {
      expect(redis.status).to.equal('connect');
      subscribe(redis).then(resolve, reject);
    });
  });
  return { redis, errors, subscribed };
}

describe('subscribing during the connection handshake (real Redis)', () => {
  const opened: Redis[] = [];
  let publisher: Redis;
  before(() => {
    publisher = createRedis({ url: config.redisUrl, logger, name: 'subscribe-test-publisher' });
  });
  afterEach(async () => {
    for (const r of opened.splice(0)) await closeRedis(r);
  });
  after(async () => closeRedis(publisher));

  it('a plain subscribe in the window breaks ioredis’s ready check (why the helpers exist)', async () => {
    const channel = uniqueName('raw');
    const c = connectingWith((redis) => redis.subscribe(channel));
    opened.push(c.redis);
    await c.subscribed.catch(() => undefined);
    await new Promise<void>((resolve) => {
      const check = () => (c.errors.length > 0 ? resolve() : setTimeout(check, 10));
      check();
    });
    expect(c.errors[0]).to.match(/subscriber mode/);
  });

  for (const [what, subscribe, deliver] of [
    [
      'subscribeChannels',
      (redis: Redis, name: string) => subscribeChannels(redis, name),
      (name: string) => publisher.publish(name, 'hello'),
    ],
    [
      'subscribePatterns',
      (redis: Redis, name: string) => subscribePatterns(redis, `${name}*`),
      (name: string) => publisher.publish(`${name}.x`, 'hello'),
    ],
  ] as const) {
    it(`${what} in the window waits for the handshake: no error, and messages arrive`, async () => {
      const name = uniqueName(what);
      const c = connectingWith((redis) => subscribe(redis, name));
      opened.push(c.redis);
      const got = new Promise<string>((resolve) => {
        c.redis.on('message', (_ch: string, text: string) => resolve(text));
        c.redis.on('pmessage', (_p: string, _ch: string, text: string) => resolve(text));
      });
      await c.subscribed;
      expect(c.redis.status).to.equal('ready');
      await deliver(name);
      expect(await got).to.equal('hello');
      expect(c.errors).to.deep.equal([]);
    });
  }
});
