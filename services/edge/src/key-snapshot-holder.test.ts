import { createLogger, type Environment } from '@lattice/core';
import { ManualClock, ManualScheduler } from '@lattice/core/testing';
import type { SnapshotKey } from '@lattice/keys';
import { expect } from 'chai';
import type { EdgeMetrics, ReloadTrigger } from './edge-metrics.ts';
import { createKeySnapshotHolder } from './key-snapshot-holder.ts';
import { NO_EDGE_METRICS } from './testing.ts';

const logger = createLogger({ name: 'test', level: 'silent' });

function key(n: number): SnapshotKey {
  return { id: `id-${n}`, productId: 'p', hash: `h${n}`, scope: { kind: 'product' }, revokedAtMs: null };
}

/** A repository whose answers the test scripts: rows to return, or an error to throw. */
function fakeKeys() {
  const calls: Array<{ environment: Environment; revokedAfter: Date }> = [];
  let next: () => Promise<SnapshotKey[]> = async () => [key(1)];
  return {
    calls,
    answer(fn: () => Promise<SnapshotKey[]>) {
      next = fn;
    },
    keys: {
      snapshotKeys(environment: Environment, revokedAfter: Date) {
        calls.push({ environment, revokedAfter });
        return next();
      },
    },
  };
}

function fakeMetrics() {
  const events: string[] = [];
  const metrics: EdgeMetrics = {
    snapshotReloaded: (t: ReloadTrigger) => events.push(`ok:${t}`),
    snapshotReloadFailed: (t: ReloadTrigger) => events.push(`fail:${t}`),
    requestOutcome: () => {},
    rateLimitFallback: () => {},
    watchSnapshot: () => () => {},
  };
  return { events, metrics };
}

describe('createKeySnapshotHolder', () => {
  it('has no snapshot before the first load, then loads active keys plus the last window of revoked ones', async () => {
    const scheduler = new ManualScheduler(1_000_000);
    const fake = fakeKeys();
    const holder = createKeySnapshotHolder({
      environment: 'development',
      keys: fake.keys,
      refreshMs: 30_000,
      logger,
      scheduler,
      metrics: NO_EDGE_METRICS,
    });
    try {
      expect(holder.current()).to.equal(null);
      await holder.start();
      expect(holder.current()?.size).to.equal(1);
      expect(holder.current()?.get('h1')?.id).to.equal('id-1');
      expect(holder.current()?.loadedAtMs).to.equal(1_000_000);
      expect(holder.generation()).to.equal(1);
      expect(fake.calls).to.deep.equal([{ environment: 'development', revokedAfter: new Date(970_000) }]);
    } finally {
      holder.close();
    }
  });

  it('keeps the last good snapshot when a reload fails, counts it, and retries before the next period', async () => {
    const scheduler = new ManualScheduler();
    const fake = fakeKeys();
    const { events, metrics } = fakeMetrics();
    const holder = createKeySnapshotHolder({
      environment: 'production',
      keys: fake.keys,
      refreshMs: 60_000,
      retryInitialMs: 20,
      logger,
      metrics,
      scheduler,
    });
    try {
      await holder.start();
      const good = holder.current();
      fake.answer(async () => {
        throw new Error('connection refused');
      });
      expect(await holder.reload()).to.equal(false);
      expect(holder.current()).to.equal(good);
      expect(events).to.deep.equal(['ok:start', 'fail:manual']);
      // The retry comes after retryInitialMs (20 ms ± 20 % jitter), not after the 60 s period.
      fake.answer(async () => [key(1), key(2)]);
      await scheduler.advanceAsync(15);
      expect(holder.generation()).to.equal(1);
      await scheduler.advanceAsync(9);
      expect(holder.generation()).to.equal(2);
      expect(holder.current()?.size).to.equal(2);
      expect(events.slice(2)).to.deep.equal(['ok:timer']);
    } finally {
      holder.close();
    }
  });

  it('withholds a snapshot no load renewed for maxAgeMs (fail closed), and serves again after the next load', async () => {
    const scheduler = new ManualScheduler();
    const fake = fakeKeys();
    const holder = createKeySnapshotHolder({
      environment: 'production',
      keys: fake.keys,
      refreshMs: 40,
      retryInitialMs: 40,
      maxAgeMs: 400,
      logger,
      scheduler,
      metrics: NO_EDGE_METRICS,
    });
    try {
      await holder.start();
      // Loads keep succeeding (every 40 ms): the snapshot is renewed and never withheld, well
      // past maxAgeMs.
      await scheduler.advanceAsync(600);
      expect(holder.current()?.size).to.equal(1);
      expect(holder.generation()).to.equal(16);
      expect(holder.current()?.loadedAtMs).to.equal(600);
      fake.answer(async () => {
        throw new Error('database unreachable');
      });
      // Failed loads (from 640), the last good snapshot still served until it is maxAgeMs old.
      await scheduler.advanceAsync(399);
      expect(fake.calls.length, 'loads were retried').to.be.greaterThan(16 + 5);
      expect(holder.generation()).to.equal(16);
      expect(holder.current()?.size).to.equal(1);
      await scheduler.advanceAsync(1);
      expect(holder.current(), 'withheld at loadedAtMs + maxAgeMs').to.equal(null);
      expect(holder.lastLoaded()?.size, 'still there for the age metric').to.equal(1);
      fake.answer(async () => [key(1), key(2)]);
      // The retries are at most 40 ms + 20 % jitter apart.
      await scheduler.advanceAsync(48);
      expect(holder.current()?.size).to.equal(2);
    } finally {
      holder.close();
    }
  });

  it('measures maxAgeMs on its scheduler: a clock that jumps past it, even during a load, expires nothing', async () => {
    const scheduler = new ManualScheduler(1_000_000);
    // The clock of the key check and of the revocation window, moved by a test as it likes.
    const clock = new ManualClock(1_000_000);
    const fake = fakeKeys();
    const holder = createKeySnapshotHolder({
      environment: 'production',
      keys: fake.keys,
      refreshMs: 40,
      maxAgeMs: 400,
      logger,
      clock,
      scheduler,
      metrics: NO_EDGE_METRICS,
    });
    try {
      await holder.start();
      clock.advance(5 * 60_000);
      await scheduler.advanceAsync(399);
      expect(holder.current(), 'renewed by the loads every 40 ms').to.not.equal(null);
      // A load that starts before the clock jumps and ends after it.
      let finish!: (keys: SnapshotKey[]) => void;
      let lastLoadStartedMs = 0;
      fake.answer(() => {
        lastLoadStartedMs = scheduler.nowMs();
        return new Promise((resolve) => (finish = resolve));
      });
      await scheduler.advanceAsync(40);
      clock.advance(5 * 60_000);
      finish([key(1), key(2)]);
      await scheduler.advanceAsync(0);
      expect(holder.current()?.size, 'the load just made is served').to.equal(2);
      // Both sides of the bound on the scheduler: loads stop succeeding, the last snapshot is
      // served until maxAgeMs after its load started, and withheld from then on.
      fake.answer(async () => {
        throw new Error('database unreachable');
      });
      await scheduler.advanceAsync(lastLoadStartedMs + 399 - scheduler.nowMs());
      expect(holder.current()?.size).to.equal(2);
      await scheduler.advanceAsync(1);
      expect(holder.current()).to.equal(null);
    } finally {
      holder.close();
    }
  });

  it('stays without a snapshot while the first loads fail, and retries until one succeeds', async () => {
    const scheduler = new ManualScheduler();
    const fake = fakeKeys();
    let failures = 3;
    fake.answer(async () => {
      if (failures-- > 0) throw new Error('database unreachable');
      return [key(7)];
    });
    const holder = createKeySnapshotHolder({
      environment: 'production',
      keys: fake.keys,
      refreshMs: 60_000,
      retryInitialMs: 5,
      logger,
      scheduler,
      metrics: NO_EDGE_METRICS,
    });
    try {
      await holder.start();
      expect(holder.current()).to.equal(null);
      // Retries after 5, 10 and 20 ms (± 20 % jitter): at most 42 ms.
      await scheduler.advanceAsync(42);
      expect(holder.current()?.get('h7')?.id).to.equal('id-7');
      expect(fake.calls).to.have.length(4);
    } finally {
      holder.close();
    }
  });

  it('refreshes every refreshMs', async () => {
    const scheduler = new ManualScheduler();
    const fake = fakeKeys();
    const holder = createKeySnapshotHolder({
      environment: 'production',
      keys: fake.keys,
      refreshMs: 20,
      logger,
      scheduler,
      metrics: NO_EDGE_METRICS,
    });
    try {
      await holder.start();
      await scheduler.advanceAsync(19);
      expect(holder.generation()).to.equal(1);
      await scheduler.advanceAsync(61);
      expect(holder.generation()).to.equal(5);
    } finally {
      holder.close();
    }
    await scheduler.advanceAsync(60);
    expect(holder.generation(), 'no load after close').to.equal(5);
    expect(scheduler.pendingTimers()).to.equal(0);
  });

  it('turns a burst of change notifications into one load', async () => {
    const scheduler = new ManualScheduler();
    const fake = fakeKeys();
    const { events, metrics } = fakeMetrics();
    const holder = createKeySnapshotHolder({
      environment: 'production',
      keys: fake.keys,
      refreshMs: 60_000,
      debounceMs: 20,
      logger,
      metrics,
      scheduler,
    });
    try {
      await holder.start();
      for (let i = 0; i < 10; i++) holder.requestReload();
      await scheduler.advanceAsync(19);
      expect(holder.generation()).to.equal(1);
      // Counted from the first notification of the burst.
      await scheduler.advanceAsync(1);
      expect(holder.generation()).to.equal(2);
      await scheduler.advanceAsync(60);
      expect(events).to.deep.equal(['ok:start', 'ok:notification']);
    } finally {
      holder.close();
    }
  });

  it('follows a running load with exactly one more when reloads are asked for meanwhile', async () => {
    const scheduler = new ManualScheduler();
    const fake = fakeKeys();
    const holder = createKeySnapshotHolder({
      environment: 'production',
      keys: fake.keys,
      refreshMs: 60_000,
      logger,
      scheduler,
      metrics: NO_EDGE_METRICS,
    });
    try {
      await holder.start();
      let release: () => void = () => {};
      fake.answer(() => new Promise((resolve) => (release = () => resolve([key(3)]))));
      const first = holder.reload();
      const second = holder.reload();
      const third = holder.reload();
      expect(second).to.equal(third);
      release();
      expect(await first).to.equal(true);
      await scheduler.settle();
      expect(fake.calls).to.have.length(3);
      release();
      expect(await second).to.equal(true);
      expect(fake.calls).to.have.length(3);
      expect(holder.generation()).to.equal(3);
    } finally {
      holder.close();
    }
  });

  it('applies only the changed rows between full loads, and drops keys revoked past their window', async () => {
    const scheduler = new ManualScheduler(1_000_000);
    const calls: Array<{ since: Date | null; revokedAfter: Date }> = [];
    const callsAtMs: number[] = [];
    let answer: SnapshotKey[] = [key(1), key(2), { ...key(3), revokedAtMs: 990_000 }];
    let dbNowMs = 5_000_000;
    const keys = {
      snapshotKeys: async (): Promise<SnapshotKey[]> => {
        throw new Error('not used when changedSince is offered');
      },
      async changedSince(_environment: Environment, since: Date | null, revokedAfter: Date) {
        calls.push({ since, revokedAfter });
        callsAtMs.push(scheduler.nowMs());
        return { keys: answer, asOf: new Date(dbNowMs) };
      },
    };
    const holder = createKeySnapshotHolder({
      environment: 'production',
      keys,
      refreshMs: 30_000,
      fullReloadMs: 600_000,
      logger,
      scheduler,
      metrics: NO_EDGE_METRICS,
    });
    try {
      await holder.start();
      const first = holder.current();
      expect(first?.size).to.equal(3);
      expect(calls[0]).to.deep.equal({ since: null, revokedAfter: new Date(970_000) });

      // The refresh a window later is incremental: a new key, a revoked one, a scope change;
      // key 3's window has passed.
      answer = [
        key(4),
        { ...key(1), revokedAtMs: 1_029_000 },
        { ...key(2), scope: { kind: 'toolkit', toolkit: 'mail' } },
      ];
      dbNowMs += 30_000;
      await scheduler.advanceAsync(30_000);
      expect(callsAtMs).to.deep.equal([1_000_000, 1_030_000]);
      expect(calls[1]?.since).to.deep.equal(new Date(5_000_000 - 60_000));
      const second = holder.current();
      expect(second).to.not.equal(first);
      expect(second?.loadedAtMs).to.equal(1_030_000);
      expect(second?.get('h4')?.id).to.equal('id-4');
      expect(second?.get('h1')?.revokedAtMs).to.equal(1_029_000);
      expect(second?.get('h2')?.scope).to.deep.equal({ kind: 'toolkit', toolkit: 'mail' });
      expect(second?.get('h3'), 'revoked past its window').to.equal(undefined);
      expect(second?.size).to.equal(3);

      // Nothing changed, but key 1's window has passed: evicted.
      answer = [];
      dbNowMs += 30_000;
      await scheduler.advanceAsync(30_000);
      expect(calls[2]?.since).to.deep.equal(new Date(5_030_000 - 60_000));
      expect(holder.current()?.get('h1')).to.equal(undefined);
      expect(holder.current()?.size).to.equal(2);

      // The first full load since the start comes fullReloadMs after it, and replaces everything.
      answer = [key(9)];
      await scheduler.advanceAsync(540_000);
      const fullAtMs = callsAtMs.filter((_, i) => calls[i]?.since === null);
      expect(fullAtMs).to.deep.equal([1_000_000, 1_600_000]);
      expect(callsAtMs.at(-1)).to.equal(1_600_000);
      expect(holder.current()?.size).to.equal(1);
      expect(holder.current()?.get('h9')?.id).to.equal('id-9');
    } finally {
      holder.close();
    }
  });
});
