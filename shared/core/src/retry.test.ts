import { expect } from 'chai';
import { retryWithBackoff } from './retry.ts';
import { ManualScheduler } from './testing/manual-scheduler.ts';

const backoff = { initialMs: 100, maxMs: 1_000 };

/** An operation that fails `failures` times, recording the time of each attempt. */
function flaky(scheduler: ManualScheduler, failures: number) {
  const attemptsAtMs: number[] = [];
  const operation = async (attempt: number) => {
    attemptsAtMs.push(scheduler.nowMs());
    if (attempt <= failures) throw new Error(`failure ${attempt}`);
    return `ok after ${attempt}`;
  };
  return { attemptsAtMs, operation };
}

describe('retryWithBackoff', () => {
  it('waits the backoff delay between attempts, on the scheduler, until one succeeds', async () => {
    const scheduler = new ManualScheduler();
    const { attemptsAtMs, operation } = flaky(scheduler, 3);
    const result = retryWithBackoff(operation, { scheduler, backoff });
    await scheduler.advanceAsync(699);
    expect(attemptsAtMs).to.deep.equal([0, 100, 300]);
    await scheduler.advanceAsync(1);
    expect(await result).to.equal('ok after 4');
    expect(attemptsAtMs).to.deep.equal([0, 100, 300, 700]);
  });

  it('throws the last error after maxAttempts, without waiting after it', async () => {
    const scheduler = new ManualScheduler();
    const { attemptsAtMs, operation } = flaky(scheduler, 10);
    const result = retryWithBackoff(operation, { scheduler, backoff, maxAttempts: 3 }).catch((e: Error) => e);
    await scheduler.advanceAsync(10_000);
    expect(((await result) as Error).message).to.equal('failure 3');
    expect(attemptsAtMs).to.deep.equal([0, 100, 300]);
    expect(scheduler.pendingTimers()).to.equal(0);
  });

  it('lets beforeRetry see each failure, choose the delay, or stop by throwing', async () => {
    const scheduler = new ManualScheduler();
    const { attemptsAtMs, operation } = flaky(scheduler, 10);
    const seen: Array<[string, number, number]> = [];
    const result = retryWithBackoff(operation, {
      scheduler,
      backoff,
      beforeRetry(err, attempt, delayMs) {
        seen.push([(err as Error).message, attempt, delayMs]);
        if (attempt === 1) return 0;
        if (attempt === 2) return 5_000;
        throw new Error('given up');
      },
    }).catch((e: Error) => e);
    await scheduler.advanceAsync(5_000);
    expect(((await result) as Error).message).to.equal('given up');
    expect(seen).to.deep.equal([
      ['failure 1', 1, 100],
      ['failure 2', 2, 200],
      ['failure 3', 3, 400],
    ]);
    expect(attemptsAtMs, 'retried at once, then after the chosen delay').to.deep.equal([0, 0, 5_000]);
  });

  it('applies the jitter of the backoff options', async () => {
    const scheduler = new ManualScheduler();
    const { attemptsAtMs, operation } = flaky(scheduler, 1);
    const result = retryWithBackoff(operation, {
      scheduler,
      backoff: { ...backoff, jitterRatio: 0.5 },
      random: () => 1,
    });
    await scheduler.advanceAsync(150);
    expect(await result).to.equal('ok after 2');
    expect(attemptsAtMs).to.deep.equal([0, 150]);
  });
});
