import { ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import { runBatches } from './batched-delete.ts';

describe('runBatches', () => {
  it('stops when a batch says nothing more is left: drained', async () => {
    const outcomes = [
      { deleted: 100, more: true },
      { deleted: 40, more: true },
      { deleted: 37, more: false },
    ];
    const run = await runBatches({
      clock: new ManualClock(0),
      budgetMs: 1000,
      batch: async () => outcomes.shift()!,
    });
    expect(run).to.deep.equal({ deleted: 177, batches: 3, drained: true, durationMs: 0 });
  });

  it('rests as long as each batch took, and starts no batch once the budget is spent, at both sides of it', async () => {
    for (const [budgetMs, batches] of [
      [600, 3],
      [601, 4],
    ] as const) {
      const clock = new ManualClock(0);
      const rests: number[] = [];
      const run = await runBatches({
        clock,
        budgetMs,
        batch: async () => {
          clock.advance(100);
          return { deleted: 10, more: true };
        },
        pause: async (ms) => {
          rests.push(ms);
          clock.advance(ms);
        },
      });
      // Batch, rest, batch, rest…: the run stops where the next rest would reach the budget.
      expect(run, `budget ${budgetMs}`).to.deep.equal({
        deleted: batches * 10,
        batches,
        drained: false,
        durationMs: batches * 100 + (batches - 1) * 100,
      });
      expect(rests).to.deep.equal(Array(batches - 1).fill(100));
    }
  });

  it('runs one batch even with no budget, so every run makes progress', async () => {
    const run = await runBatches({
      clock: new ManualClock(0),
      budgetMs: 0,
      batch: async () => ({ deleted: 5, more: true }),
    });
    expect([run.batches, run.drained]).to.deep.equal([1, false]);
  });
});
