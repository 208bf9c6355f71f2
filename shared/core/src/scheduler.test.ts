import { expect } from 'chai';
import { systemScheduler } from './scheduler.ts';

// The system scheduler is Node's timers; these run on real time, for a few milliseconds.
describe('systemScheduler', () => {
  it('reads the system time', () => {
    const before = Date.now();
    const nowMs = systemScheduler.nowMs();
    expect(nowMs).to.be.within(before, Date.now());
  });

  it('runs a timeout once, and an interval until cleared', async () => {
    let timeouts = 0;
    await new Promise<void>((resolve) => systemScheduler.setTimeout(() => resolve(void timeouts++), 1));
    let ticks = 0;
    await new Promise<void>((resolve) => {
      const interval = systemScheduler.setInterval(() => {
        ticks++;
        if (ticks < 3) return;
        systemScheduler.clearTimer(interval);
        resolve();
      }, 1);
    });
    await systemScheduler.sleep(10);
    expect(timeouts).to.equal(1);
    expect(ticks, 'none after clearing').to.equal(3);
  });

  it('clears a timeout before it runs, and ignores undefined', async () => {
    let ran = false;
    const timer = systemScheduler.setTimeout(() => {
      ran = true;
    }, 1);
    systemScheduler.clearTimer(timer);
    systemScheduler.clearTimer(undefined);
    await systemScheduler.sleep(10);
    expect(ran).to.equal(false);
  });

  it('lets an unref timer not hold the process', () => {
    const held = systemScheduler.setTimeout(() => {}, 60_000);
    const unheld = systemScheduler.setTimeout(() => {}, 60_000, { unref: true });
    try {
      expect((held as unknown as NodeJS.Timeout).hasRef()).to.equal(true);
      expect((unheld as unknown as NodeJS.Timeout).hasRef()).to.equal(false);
    } finally {
      systemScheduler.clearTimer(held);
      systemScheduler.clearTimer(unheld);
    }
  });
});
