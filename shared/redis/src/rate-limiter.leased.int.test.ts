import { type AddressInfo, createServer, type Socket } from 'node:net';
import { createLogger } from '@lattice/core';
import { type CapturedLogs, captureLogs, LEVEL, ManualClock, ManualScheduler } from '@lattice/core/testing';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { rateLimitKey } from './keys.ts';
import { createFallbackRateLimiter } from './rate-limiter.fallback.ts';
import { createLeasedRateLimiter, type LeasedRateLimiterOptions } from './rate-limiter.leased.ts';
import { createMemoryRateLimiter } from './rate-limiter.memory.ts';
import type { FixedWindowPolicy, RateLimitResult } from './rate-limiter.ts';
import { closeRedis, createRedis } from './redis-client.ts';
import { defineScripts, runScript } from './scripts.ts';
import { describeRateLimiter } from './testing/rate-limiter-conformance.ts';
import { CLOSED_REDIS_URL, TEST_REDIS_URL, useRedisTestSpace } from './testing/test-redis.ts';

const logger = createLogger({ name: 'rate-limiter-leased-test', level: 'silent' });
const WINDOW_START_MS = 1_700_000_040_000;
const PER_IP: FixedWindowPolicy = { name: 'per-ip', limit: 100, windowMs: 60_000 };

/** Counts the lease requests a connection sends (the script's method, wrapped). */
function countLeaseRequests(redis: Redis): { count(): number } {
  defineScripts(redis);
  const methods = redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = methods.leaseWindow!;
  let calls = 0;
  methods.leaseWindow = (...args: unknown[]) => {
    calls += 1;
    return original.apply(redis, args);
  };
  return { count: () => calls };
}

describe('lease-window-1.lua (Redis)', () => {
  const space = useRedisTestSpace('lease-script-test', logger);
  let redis: Redis;
  let prefix: string;
  let key: string;
  // need, maxGrant, limit, expiryMs, divisor
  const lease = (...args: Array<string | number>) => runScript(redis, 'lease-window', [key], args);

  beforeEach(() => {
    ({ redis, prefix: prefix } = space);
    key = `${prefix}counter`;
  });

  it('grants a quarter of what is left, at most maxGrant, at least need, and sets the expiry once', async () => {
    expect(await lease(1, 10, 100, 60_000, 4)).to.deep.equal([10, 10, 60_000]);
    expect(await redis.pttl(key)).to.be.within(59_000, 60_000);
    expect(await lease(1, 50, 100, 1_000, 4)).to.deep.include.members([22, 32]); // floor(90 / 4)
    expect(await redis.pttl(key)).to.be.above(50_000);
    expect(await lease(30, 30, 100, 60_000, 4)).to.deep.include.members([30, 62]); // need beats the share
  });

  it('shrinks leases to single units near the limit and never goes above it', async () => {
    const grants: number[] = [];
    for (;;) {
      const [granted, count] = (await lease(1, 64, 100, 60_000, 4)) as number[];
      if (granted === 0) {
        expect(count).to.equal(100);
        break;
      }
      grants.push(granted!);
    }
    expect(grants.reduce((a, b) => a + b, 0)).to.equal(100);
    expect(grants.slice(-4)).to.deep.equal([1, 1, 1, 1]);
    expect(await redis.get(key)).to.equal('100');
  });

  it('grants nothing when fewer than need units are left, and reads with need and maxGrant 0', async () => {
    await redis.set(key, '98');
    expect((await lease(3, 3, 100, 60_000, 4)) as number[]).to.have.ordered.members([0, 98, 60_000]);
    expect(await redis.get(key)).to.equal('98');
    expect(((await lease(0, 0, 100, 60_000, 4)) as number[]).slice(0, 2)).to.deep.equal([0, 98]);
    expect(((await lease(2, 2, 100, 60_000, 4)) as number[]).slice(0, 2)).to.deep.equal([2, 100]);
    // A lowered limit below the count refuses, it does not go negative.
    expect(((await lease(1, 1, 50, 60_000, 4)) as number[]).slice(0, 2)).to.deep.equal([0, 100]);
  });

  it('reads a missing key without creating it', async () => {
    expect(await lease(0, 0, 100, 60_000, 4)).to.deep.equal([0, 0, 60_000]);
    expect(await redis.exists(key)).to.equal(0);
  });

  it('answers malformed arguments with an error instead of counting', async () => {
    const bad: Array<Array<string | number>> = [
      [-1, 1, 100, 1000, 4],
      [2, 1, 100, 1000, 4],
      [1, 1, 1.5, 1000, 4],
      [1, 1, 100, 0, 4],
      [1, 1, 100, 1000, 0],
      ['x', 1, 100, 1000, 4],
    ];
    for (const args of bad) {
      let error: unknown;
      try {
        await lease(...args);
      } catch (err) {
        error = err;
      }
      expect(String(error), JSON.stringify(args)).to.match(/ERR lease-window/);
    }
    expect(await redis.exists(key)).to.equal(0);
  });
});

describe('createLeasedRateLimiter (Redis)', () => {
  const space = useRedisTestSpace('rate-limiter-leased-test', logger);
  let redis: Redis;
  let keyPrefix: string;

  beforeEach(() => {
    ({ redis, prefix: keyPrefix } = space);
  });

  describeRateLimiter('leased', ({ policy, clock }) =>
    createLeasedRateLimiter({ redis, policy, clock, keyPrefix }),
  );
  // Leases as large as the policy allows, so the bound is reached with units still leased.
  describeRateLimiter('leased, large leases', ({ policy, clock }) =>
    createLeasedRateLimiter({ redis, policy, clock, keyPrefix, maxLease: 1_000, leaseDivisor: 1 }),
  );

  function node(r: Redis, clock: ManualClock, options: Partial<LeasedRateLimiterOptions> = {}) {
    return createLeasedRateLimiter({ redis: r, policy: PER_IP, clock, keyPrefix, ...options });
  }

  it('one node: admits exactly 100 in a window with few round trips, refuses the 101st without one', async () => {
    const clock = new ManualClock(WINDOW_START_MS + 1_000);
    const leases = countLeaseRequests(redis);
    const before = leases.count();
    const limiter = node(redis, clock);
    const results: RateLimitResult[] = [];
    for (let i = 0; i < 100; i++) results.push(await limiter.consume('203.0.113.7'));
    results.forEach((r, i) => {
      expect(r, `request ${i + 1}`).to.deep.include({ allowed: true, count: i + 1, remaining: 99 - i });
    });
    const roundTrips = leases.count() - before;
    // 10-unit leases (a tenth of the limit) while they fit, shrinking near the bound.
    expect(roundTrips).to.be.within(10, 30);
    for (let i = 0; i < 5; i++) {
      expect(await limiter.consume('203.0.113.7')).to.deep.include({
        allowed: false,
        count: 100,
        remaining: 0,
      });
    }
    // The last lease reported the counter at the limit: certain refusals, no round trip.
    expect(leases.count() - before).to.equal(roundTrips);
    const key = rateLimitKey(keyPrefix, 'per-ip', '203.0.113.7', WINDOW_START_MS);
    expect(await redis.get(key)).to.equal('100');
    // The synchronous fast path gives the same answers and never asks Redis.
    expect(limiter.tryConsume('203.0.113.7')).to.deep.include({ allowed: false, count: 100 });
    expect(limiter.tryConsume('198.51.100.1')).to.equal(undefined);
  });

  it('leases a tenth of the limit by default, at most 1024 units', async () => {
    const clock = new ManualClock(WINDOW_START_MS + 1_000);
    const firstLease = async (limit: number) => {
      const policy = { name: `default-lease-${limit}`, limit, windowMs: 60_000 };
      const limiter = createLeasedRateLimiter({ redis, policy, clock, keyPrefix, prefetch: false });
      await limiter.consume('203.0.113.20');
      return Number(await redis.get(rateLimitKey(keyPrefix, policy.name, '203.0.113.20', WINDOW_START_MS)));
    };
    expect(await firstLease(100)).to.equal(10);
    expect(await firstLease(10_230)).to.equal(1_023);
    expect(await firstLease(10_240)).to.equal(1_024);
    expect(await firstLease(10_250)).to.equal(1_024);
    expect(await firstLease(1_000_000_000)).to.equal(1_024);
  });

  it('two nodes sharing one Redis never admit more than the limit in a window, however interleaved', async () => {
    const other = createRedis({ url: TEST_REDIS_URL, logger, name: 'rate-limiter-leased-test-2' });
    try {
      const clock = new ManualClock(WINDOW_START_MS + 1_000);
      const nodes = [node(redis, clock), node(other, clock)];
      const ips = ['203.0.113.7', '203.0.113.8', '2001:db8::1'];
      // 400 requests per address, in concurrent bursts of varied size, spread unevenly.
      const admitted = new Map<string, number>(ips.map((ip) => [ip, 0]));
      for (let burst = 0; burst < 40; burst++) {
        const calls: Array<Promise<[string, RateLimitResult]>> = [];
        for (const ip of ips) {
          for (let i = 0; i < 10; i++) {
            const n = nodes[(burst * 7 + i * (burst % 3 === 0 ? 1 : 3)) % 2]!;
            calls.push(n.consume(ip).then((r) => [ip, r]));
          }
        }
        for (const [ip, r] of await Promise.all(calls))
          if (r.allowed) admitted.set(ip, admitted.get(ip)! + 1);
      }
      for (const ip of ips) {
        const stored = Number(await redis.get(rateLimitKey(keyPrefix, 'per-ip', ip, WINDOW_START_MS)));
        expect(stored, ip).to.be.at.most(100);
        expect(admitted.get(ip), ip).to.be.at.most(stored);
        // Under-admission is bounded by what each node can hold unused: one lease of at most 10
        // plus the quarter of the previous one left when it prefetched.
        expect(admitted.get(ip), ip).to.be.at.least(100 - 2 * 12);
      }

      // Next window: a fresh allowance on both nodes, nothing carried over.
      clock.set(WINDOW_START_MS + 60_000);
      const results = await Promise.all(
        Array.from({ length: 150 }, (_, i) => nodes[i % 2]!.consume('203.0.113.7')),
      );
      const allowed = results.filter((r) => r.allowed).length;
      expect(allowed).to.be.at.most(100);
      expect(allowed).to.be.at.least(80);
      const stored = Number(
        await redis.get(rateLimitKey(keyPrefix, 'per-ip', '203.0.113.7', WINDOW_START_MS + 60_000)),
      );
      expect(stored).to.be.at.most(100);
    } finally {
      await closeRedis(other);
    }
  });

  it('two nodes alternating one by one admit exactly the limit', async () => {
    const other = createRedis({ url: TEST_REDIS_URL, logger, name: 'rate-limiter-leased-test-3' });
    try {
      const clock = new ManualClock(WINDOW_START_MS + 1_000);
      const nodes = [node(redis, clock), node(other, clock)];
      const results: RateLimitResult[] = [];
      for (let i = 0; i < 130; i++) results.push(await nodes[i % 2]!.consume('203.0.113.9'));
      // Both nodes keep using their leases, so nothing is left stranded: exactly 100, then refusals.
      expect(results.slice(0, 100).every((r) => r.allowed)).to.equal(true);
      expect(results.slice(100).some((r) => r.allowed)).to.equal(false);
    } finally {
      await closeRedis(other);
    }
  });

  it('concurrent calls of one address on one node share one lease request', async () => {
    const clock = new ManualClock(WINDOW_START_MS + 1_000);
    const leases = countLeaseRequests(redis);
    const before = leases.count();
    const limiter = node(redis, clock, { maxLease: 64, prefetch: false });
    // 20 calls at once: one lease of floor(100 / 4) = 25 units answers all of them.
    const results = await Promise.all(Array.from({ length: 20 }, () => limiter.consume('203.0.113.10')));
    expect(leases.count() - before).to.equal(1);
    expect(results.map((r) => r.count).sort((a, b) => a - b)).to.deep.equal(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    // 10 more at once: 5 left in the lease, then one more lease (floor(75 / 4) = 18) for the rest.
    const more = await Promise.all(Array.from({ length: 10 }, () => limiter.consume('203.0.113.10')));
    expect(more.every((r) => r.allowed)).to.equal(true);
    expect(leases.count() - before).to.equal(2);
  });

  it('prefetches the next lease of a busy address, so its calls rarely wait for Redis', async () => {
    const clock = new ManualClock(WINDOW_START_MS + 1_000);
    const busy = { name: 'busy', limit: 1_000_000, windowMs: 60_000 };
    const run = async (prefetch: boolean) => {
      const limiter = createLeasedRateLimiter({
        redis,
        policy: busy,
        clock,
        keyPrefix,
        prefetch,
        maxLease: 64,
      });
      const id = `203.0.113.${prefetch ? 1 : 2}`;
      let waited = 0;
      for (let i = 1; i <= 1_000; i++) {
        let result = limiter.tryConsume(id);
        if (result === undefined) {
          waited += 1;
          result = await limiter.consume(id);
        }
        expect(result).to.deep.include({ allowed: true, count: i });
        // Time for I/O now and then, as a server has between requests: a round trip on the same
        // connection, whose reply comes after that of any lease asked for before it (not a timer,
        // which a busy Redis can outlast).
        if (i % 8 === 0) await redis.ping();
      }
      return waited;
    };
    expect(await run(false)).to.equal(16); // 1000 / 64, rounded up
    expect(await run(true)).to.equal(1); // only the first call: every later lease came early
  });

  it('does not prefetch near the bound, where leases are taken on demand', async () => {
    const clock = new ManualClock(WINDOW_START_MS + 1_000);
    const leases = countLeaseRequests(redis);
    const withPrefetch = node(redis, clock);
    const before = leases.count();
    for (let i = 0; i < 100; i++) await withPrefetch.consume('203.0.113.11');
    const used = leases.count() - before;
    const without = node(redis, clock, { prefetch: false });
    const before2 = leases.count();
    for (let i = 0; i < 100; i++) await without.consume('203.0.113.12');
    // Prefetching changes when leases are asked for, not how many: no empty grants near the bound.
    expect(used).to.be.at.most(leases.count() - before2 + 1);
    expect(await withPrefetch.consume('203.0.113.11')).to.deep.include({ allowed: false, count: 100 });
  });

  it('sends the lease requests of one event-loop turn together', async () => {
    const clock = new ManualClock(WINDOW_START_MS + 1_000);
    const limiter = node(redis, clock);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => limiter.consume(`198.51.100.${i}`)),
    );
    expect(results.every((r) => r.allowed && r.count === 1)).to.equal(true);
    expect(limiter.bucketCount()).to.equal(50);
  });

  it('drops every lease when the window rolls, and bounds the buckets it holds', async () => {
    const clock = new ManualClock(WINDOW_START_MS + 1_000);
    const limiter = node(redis, clock, { maxBuckets: 4 });
    for (const ip of ['a', 'b', 'c', 'd']) await limiter.consume(ip);
    expect(limiter.bucketCount()).to.equal(4);
    // 'b' seen again: it moves to the young generation, and survives the next turnover.
    expect(limiter.tryConsume('b')).to.deep.include({ allowed: true, count: 2 });
    await limiter.consume('e');
    expect(limiter.bucketCount()).to.be.at.most(4);
    expect(limiter.tryConsume('b')).to.deep.include({ allowed: true, count: 3 });
    // 'a' went with the old generation; its unused units are lost, never handed out twice.
    expect(limiter.tryConsume('a')).to.equal(undefined);
    expect(await limiter.consume('a')).to.deep.include({ allowed: true, count: 11 });
    clock.set(WINDOW_START_MS + 60_000);
    expect(limiter.tryConsume('b')).to.equal(undefined);
    expect(limiter.bucketCount()).to.equal(0);
    expect(await limiter.consume('b')).to.deep.include({ allowed: true, count: 1 });
  });

  it('fails the waiting calls when Redis does not answer within timeoutMs', async () => {
    // A server that accepts connections and never answers: a hung Redis.
    const sockets = new Set<Socket>();
    const blackHole = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const { port } = blackHole.address() as AddressInfo;
    const stalled = createRedis({
      url: `redis://127.0.0.1:${port}`,
      logger,
      name: 'rate-limiter-leased-stalled',
    });
    try {
      const scheduler = new ManualScheduler(WINDOW_START_MS + 1_000);
      const limiter = node(stalled, scheduler, { timeoutMs: 50, scheduler });
      let settled = false;
      const outcomes = Promise.allSettled([limiter.consume('x'), limiter.consume('x')]).then((all) => {
        settled = true;
        return all;
      });
      await scheduler.advanceAsync(49);
      expect(settled, 'still waiting just before timeoutMs').to.equal(false);
      await scheduler.advanceAsync(1);
      for (const o of await outcomes) {
        expect(o.status).to.equal('rejected');
        expect(String((o as PromiseRejectedResult).reason)).to.match(/within 50 ms/);
      }
    } finally {
      stalled.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    }
  });
});

describe('createFallbackRateLimiter over the leased limiter (Redis)', () => {
  const space = useRedisTestSpace('leased-fallback-admin', logger);
  const policy: FixedWindowPolicy = { name: 'per-ip', limit: 100, windowMs: 60_000 };
  let keyPrefix: string;
  beforeEach(() => {
    keyPrefix = space.prefix;
  });

  function setup(redis: Redis, logs: CapturedLogs) {
    const clock = new ManualClock(WINDOW_START_MS + 1_000);
    const fallbacks: string[] = [];
    const limiter = createFallbackRateLimiter({
      primary: createLeasedRateLimiter({ redis, policy, clock, keyPrefix }),
      local: createMemoryRateLimiter({ policy, clock }),
      timeoutMs: 0,
      logger: logs.logger,
      countFallback: (name) => fallbacks.push(name),
      clock,
    });
    return { clock, fallbacks, limiter };
  }

  it('limits locally when Redis cannot be reached, logging the outage once', async () => {
    const logs = captureLogs();
    const redis = createRedis({ url: CLOSED_REDIS_URL, logger: logs.logger, name: 'unreachable' });
    try {
      const { limiter, fallbacks } = setup(redis, logs);
      const results = [];
      for (let i = 0; i < 102; i++) results.push(await limiter.consume('203.0.113.7'));
      expect(results.filter((r) => r.allowed)).to.have.length(100);
      expect(results.at(-1)).to.deep.include({ allowed: false, count: 100, remaining: 0 });
      expect(limiter.isDegraded()).to.equal(true);
      expect(fallbacks).to.have.length(102);
      expect(logs.at(LEVEL.warn).filter((l) => l.msg.startsWith('rate limits degraded'))).to.have.length(1);
    } finally {
      await closeRedis(redis);
    }
  });

  it('keeps serving leased units during an outage without flapping between degraded and restored', async () => {
    const logs = captureLogs();
    const redis = createRedis({ url: TEST_REDIS_URL, logger: logs.logger, name: 'dropping' });
    try {
      const { limiter, fallbacks, clock } = setup(redis, logs);
      expect(await limiter.consume('203.0.113.7')).to.deep.include({ allowed: true, count: 1 });
      redis.disconnect();
      // Another address needs Redis: degraded, answered locally.
      expect(await limiter.consume('198.51.100.1')).to.deep.include({ allowed: true, count: 1 });
      expect(limiter.isDegraded()).to.equal(true);
      // The leased address keeps its units (granted by Redis before the outage), even at probe time.
      clock.advance(2_000);
      for (let i = 2; i <= 10; i++) {
        expect(await limiter.consume('203.0.113.7')).to.deep.include({ allowed: true, count: i });
      }
      expect(limiter.isDegraded()).to.equal(true);
      expect(fallbacks).to.have.length(1);
      expect(logs.at(LEVEL.info).filter((l) => l.msg.startsWith('rate limits restored'))).to.have.length(0);
      await redis.connect();
      // The next call that needs Redis probes it and ends the outage.
      expect(await limiter.consume('198.51.100.2')).to.deep.include({ allowed: true, count: 1 });
      expect(limiter.isDegraded()).to.equal(false);
      expect(logs.at(LEVEL.warn).filter((l) => l.msg.startsWith('rate limits degraded'))).to.have.length(1);
    } finally {
      await closeRedis(redis);
    }
  });
});
