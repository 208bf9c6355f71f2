import { createLogger } from '@lattice/core';
import { ManualScheduler } from '@lattice/core/testing';
import type { RecordProducer } from '@lattice/kafka';
import { expect } from 'chai';
import { startPeriodicJobs } from './periodic-jobs.ts';

const logger = createLogger({ name: 'jobs-test', level: 'silent' });
const ctx = { producer: {} as RecordProducer, topicPrefix: 'p.' };

describe('periodic jobs', () => {
  it('runs each job every interval without overlapping itself, survives failures, and stop waits for a run', async () => {
    const scheduler = new ManualScheduler();
    const slowStartsMs: number[] = [];
    const failingStartsMs: number[] = [];
    let running = 0;
    let overlapped = false;
    const jobs = startPeriodicJobs(
      [
        {
          name: 'slow',
          intervalMs: 5,
          run: async () => {
            running++;
            overlapped ||= running > 1;
            slowStartsMs.push(scheduler.nowMs());
            await scheduler.sleep(20);
            running--;
          },
        },
        {
          name: 'failing',
          intervalMs: 5,
          run: async () => {
            failingStartsMs.push(scheduler.nowMs());
            throw new Error('boom');
          },
        },
      ],
      ctx,
      logger,
      scheduler,
    );
    await scheduler.advanceAsync(120);
    // The next turn is counted from the end of a run: 20 ms of work plus the 5 ms interval.
    expect(slowStartsMs).to.deep.equal([5, 30, 55, 80, 105]);
    expect(overlapped).to.equal(false);
    expect(failingStartsMs, 'a failing job keeps its schedule').to.deep.equal(
      Array.from({ length: 24 }, (_, i) => 5 * (i + 1)),
    );

    let stopped = false;
    const stopping = jobs.stop().then(() => {
      stopped = true;
    });
    await scheduler.advanceAsync(4);
    expect(stopped, 'stop waits for the run in progress (until 125)').to.equal(false);
    await scheduler.advanceAsync(1);
    await stopping;
    expect(running).to.equal(0);
    await scheduler.advanceAsync(1_000);
    expect(slowStartsMs, 'nothing runs after stop').to.have.length(5);
    expect(failingStartsMs).to.have.length(24);
    expect(scheduler.pendingTimers()).to.equal(0);
  });
});
