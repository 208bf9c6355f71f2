import { expect } from 'chai';
import { ManualScheduler } from './manual-scheduler.ts';

describe('ManualScheduler', () => {
  it('runs nothing until time moves, then the due timers in due order (ties in the order set)', () => {
    const s = new ManualScheduler(1_000);
    const ran: string[] = [];
    s.setTimeout(() => ran.push(`b@${s.nowMs()}`), 20);
    s.setTimeout(() => ran.push(`a@${s.nowMs()}`), 10);
    s.setTimeout(() => ran.push(`c@${s.nowMs()}`), 20);
    s.setTimeout(() => ran.push('late'), 31);
    expect(ran).to.deep.equal([]);
    s.advance(30);
    expect(ran).to.deep.equal(['a@1010', 'b@1020', 'c@1020']);
    expect(s.nowMs()).to.equal(1_030);
    expect(s.pendingTimers()).to.equal(1);
  });

  it('runs timers set by a callback when they fall due within the same advance', () => {
    const s = new ManualScheduler();
    const ran: number[] = [];
    s.setTimeout(() => {
      ran.push(s.nowMs());
      s.setTimeout(() => ran.push(s.nowMs()), 5);
    }, 5);
    s.advance(10);
    expect(ran).to.deep.equal([5, 10]);
  });

  it('repeats an interval until cleared, also from inside its own callback', () => {
    const s = new ManualScheduler();
    const ran: number[] = [];
    const timer = s.setInterval(() => {
      ran.push(s.nowMs());
      if (ran.length === 3) s.clearTimer(timer);
    }, 10);
    s.advance(100);
    expect(ran).to.deep.equal([10, 20, 30]);
    expect(s.pendingTimers()).to.equal(0);
  });

  it('clears a timeout, and ignores undefined and spent timers', () => {
    const s = new ManualScheduler();
    let ran = false;
    const t = s.setTimeout(() => {
      ran = true;
    }, 10);
    s.clearTimer(t);
    s.clearTimer(undefined);
    s.advance(20);
    expect(ran).to.equal(false);
    const spent = s.setTimeout(() => {}, 1);
    s.advance(1);
    s.clearTimer(spent);
    expect(s.pendingTimers()).to.equal(0);
  });

  it('drives an async loop of sleeps with advanceAsync, each step at its exact time', async () => {
    const s = new ManualScheduler();
    const woke: number[] = [];
    const loop = (async () => {
      for (const ms of [100, 200, 400]) {
        await s.sleep(ms);
        woke.push(s.nowMs());
      }
    })();
    await s.advanceAsync(699);
    expect(woke).to.deep.equal([100, 300]);
    await s.advanceAsync(1);
    await loop;
    expect(woke).to.deep.equal([100, 300, 700]);
  });

  it('rejects a sleep whose signal is aborted, and clears its timer', async () => {
    const s = new ManualScheduler();
    const controller = new AbortController();
    const slept = s.sleep(1_000, controller.signal);
    controller.abort(new Error('stopped'));
    const err = await slept.then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.equal('stopped');
    expect(s.pendingTimers()).to.equal(0);
  });

  it('set moves time forward as advance does, and back without running anything', () => {
    const s = new ManualScheduler(100);
    const ran: number[] = [];
    s.setTimeout(() => ran.push(s.nowMs()), 50);
    s.set(50);
    expect(ran).to.deep.equal([]);
    s.set(200);
    expect(ran).to.deep.equal([150]);
    expect(s.nowMs()).to.equal(200);
  });
});
