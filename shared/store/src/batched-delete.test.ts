import { ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import { runBatches } from './batched-delete.ts';

describe('runBatches', () => {
  it('stops when a batch comes back short: drained', async () => {
    const sizes = [100, 100, 37];
    const run = await runBatches({
      clock: new ManualClock(0),
      budgetMs: 1000,
      batchSize: 100,
      batch: async () => sizes.shift()!,
    });
    expect(run).to.deep.equal({ deleted: 237, batches: 3, drained: true, durationMs: 0 });
  });

  it('stops once the budget is spent, at both sides of it, and says there is more', async () => {
    for (const [budgetMs, batches] of [
      [300, 3],
      [301, 4],
    ] as const) {
      const clock = new ManualClock(0);
      const run = await runBatches({
        clock,
        budgetMs,
        batchSize: 10,
        batch: async () => {
          clock.advance(100);
          return 10;
        },
      });
      expect(run, `budget ${budgetMs}`).to.deep.equal({
        deleted: batches * 10,
        batches,
        drained: false,
        durationMs: batches * 100,
      });
    }
  });

  it('runs one batch even with no budget left, so every run makes progress', async () => {
    const run = await runBatches({
      clock: new ManualClock(0),
      budgetMs: 0,
      batchSize: 5,
      batch: async () => 5,
    });
    expect(run.batches).to.equal(1);
    expect(run.drained).to.equal(false);
  });
});
