import { createLogger } from '@lattice/core';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { runScript } from './scripts.ts';
import { useRedisTestSpace } from './testing/test-redis.ts';

const logger = createLogger({ name: 'scripts-test', level: 'silent' });

describe('fixed-window-1.lua (Redis)', () => {
  const space = useRedisTestSpace('scripts-test', logger);
  let redis: Redis;
  let prefix: string;
  let key: string;
  const fixedWindow = (...args: Array<string | number>) => runScript(redis, 'fixed-window', [key], args);

  beforeEach(() => {
    ({ redis, prefix: prefix } = space);
    key = `${prefix}counter`;
  });

  it('adds the cost and sets the expiry on the first hit only', async () => {
    const [count, ttlMs, applied] = (await fixedWindow(2, 30_000, 10)) as number[];
    expect([count, applied]).to.deep.equal([2, 1]);
    expect(ttlMs).to.be.within(29_000, 30_000);
    await redis.pexpire(key, 5_000);
    const second = (await fixedWindow(3, 30_000, 10)) as number[];
    expect(second[0]).to.equal(5);
    // The window's end does not move with later hits.
    expect(second[1]).to.be.at.most(5_000);
  });

  it('refuses without counting when the hard limit would be crossed', async () => {
    await fixedWindow(9, 30_000, 10);
    expect(((await fixedWindow(2, 30_000, 10)) as number[]).filter((_, i) => i !== 1)).to.deep.equal([9, 0]);
    expect(await redis.get(key)).to.equal('9');
    expect(((await fixedWindow(1, 30_000, 10)) as number[]).filter((_, i) => i !== 1)).to.deep.equal([10, 1]);
  });

  it('always counts when the hard limit is omitted or negative', async () => {
    await fixedWindow(5, 30_000);
    await fixedWindow(5, 30_000, -1);
    expect(await redis.get(key)).to.equal('10');
  });

  it('reads without creating the key when cost is 0', async () => {
    expect(await fixedWindow(0, 30_000, 10)).to.deep.equal([0, 30_000, 1]);
    expect(await redis.exists(key)).to.equal(0);
  });

  it('repairs a counter that lost its expiry', async () => {
    await redis.set(key, '4');
    await fixedWindow(1, 30_000, 10);
    expect(await redis.pttl(key)).to.be.within(29_000, 30_000);
  });

  it('answers malformed arguments with an error instead of counting', async () => {
    for (const args of [
      ['x', 1000],
      [-1, 1000],
      [1.5, 1000],
      [1, 0],
      [1, 1000, 'y'],
      [1, 1000, 2.5],
    ]) {
      let error: unknown;
      await fixedWindow(...args).catch((err: unknown) => {
        error = err;
      });
      expect(String(error), JSON.stringify(args)).to.contain('ERR fixed-window');
    }
    expect(await redis.exists(key)).to.equal(0);
  });

  it('checks the key count before reaching Redis', async () => {
    let error: unknown;
    await runScript(redis, 'fixed-window', [key, key], [1, 1000]).catch((err: unknown) => {
      error = err;
    });
    expect(error).to.be.instanceOf(TypeError);
  });
});
