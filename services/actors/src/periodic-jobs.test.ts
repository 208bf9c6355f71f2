import { createLogger, sleep } from '@lattice/core';
import type { RecordProducer } from '@lattice/kafka';
import { expect } from 'chai';
import { startPeriodicJobs } from './periodic-jobs.ts';

const logger = createLogger({ name: 'jobs-test', level: 'silent' });
const ctx = { producer: {} as RecordProducer, topicPrefix: 'p.' };

describe('periodic jobs', () => {
  it('runs each job every interval without overlapping itself, survives failures, and stop waits for a run', async () => {
    let runs = 0;
    let running = 0;
    let overlapped = false;
    let failures = 0;
    const jobs = startPeriodicJobs(
      [
        {
          name: 'slow',
          intervalMs: 5,
          run: async () => {
            running++;
            overlapped ||= running > 1;
            runs++;
            await sleep(20);
            running--;
          },
        },
        {
          name: 'failing',
          intervalMs: 5,
          run: async () => {
            failures++;
            throw new Error('boom');
          },
        },
      ],
      ctx,
      logger,
    );
    await sleep(120);
    await jobs.stop();
    expect(running, 'stop waited for the run in progress').to.equal(0);
    const after = runs;
    await sleep(40);
    expect(runs, 'nothing runs after stop').to.equal(after);
    expect(runs).to.be.greaterThan(2);
    expect(failures, 'a failing job keeps its schedule').to.be.greaterThan(2);
    expect(overlapped).to.equal(false);
  });
});
