// A purge's run: batches of bounded size, one short statement each, until nothing is left or the
// run's time budget is spent (docs/operations.md "Retention"). A batch started inside the budget
// finishes, so a run can overrun its budget by at most one batch; the next run goes on where this
// one stopped.
import type { Clock } from '@lattice/core';

export interface BatchedRun {
  /** Rows the batches removed. */
  deleted: number;
  batches: number;
  /** True when the last batch found fewer rows than it could take: nothing is left to purge. */
  drained: boolean;
  durationMs: number;
}

export async function runBatches(opts: {
  clock: Clock;
  budgetMs: number;
  batchSize: number;
  /** Deletes at most `batchSize` rows and answers how many. */
  batch: () => Promise<number>;
}): Promise<BatchedRun> {
  const startMs = opts.clock.nowMs();
  let deleted = 0;
  let batches = 0;
  for (;;) {
    const n = await opts.batch();
    deleted += n;
    batches++;
    const durationMs = opts.clock.nowMs() - startMs;
    if (n < opts.batchSize) return { deleted, batches, drained: true, durationMs };
    if (durationMs >= opts.budgetMs) return { deleted, batches, drained: false, durationMs };
  }
}
