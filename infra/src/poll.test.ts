import { createLogger } from '@lattice/core';
import { expect } from 'chai';
import { pollUntilReady } from './poll.ts';

const logger = createLogger({ name: 'poll-test', level: 'silent' });

describe('pollUntilReady', () => {
  it('resolves once the probe answers, treating rejections as "not yet"', async () => {
    let calls = 0;
    const probe = async () => {
      calls += 1;
      if (calls === 1) throw new Error('refused');
      return calls >= 3;
    };
    await pollUntilReady({ what: 'thing', probe, timeoutMs: 1000, intervalMs: 5, logger });
    expect(calls).to.equal(3);
  });

  it('times out with the last error', async () => {
    const probe = async (): Promise<boolean> => {
      throw new Error('connection refused');
    };
    const err = await pollUntilReady({ what: 'thing', probe, timeoutMs: 50, intervalMs: 5, logger }).catch(
      (e: Error) => e,
    );
    expect(String(err)).to.match(/thing not ready after .*connection refused/);
  });

  it('stops waiting as soon as failure() gives a reason', async () => {
    const startedMs = Date.now();
    const err = await pollUntilReady({
      what: 'thing',
      probe: async () => false,
      timeoutMs: 10_000,
      intervalMs: 5,
      logger,
      failure: async () => 'process 1 exited',
    }).catch((e: Error) => e);
    expect(String(err)).to.match(/will not become ready: process 1 exited/);
    // Far below the 10 s timeout a poll that ignored failure() would wait for.
    expect(Date.now() - startedMs).to.be.below(5000);
  });
});
