// A purge's run: batches of bounded size, one short statement each, until nothing is left or the
// run's time budget is spent (docs/operations.md "Retention"). Between batches the run rests as
// long as the batch took (restRatio 1), so a purge keeps at most about half of one database
// session busy and the live path is not queued behind it. A batch is started only while the
// budget lasts, and a rest only when the next batch could still start, so a run overruns its
// budget by at most one batch; the next run goes on where this one stopped.
import type { Clock } from '@lattice/core';

export interface BatchedRun {
  /** Rows the batches removed. */
  deleted: number;
  batches: number;
  /** True when the last batch found nothing more to look at. */
  drained: boolean;
  durationMs: number;
}

/** What one batch did: rows deleted, and whether more rows are left to look at. */
export interface BatchOutcome {
  deleted: number;
  more: boolean;
}

export async function runBatches(opts: {
  clock: Clock;
  budgetMs: number;
  batch: () => Promise<BatchOutcome>;
  /** Waits between batches (the scheduler's sleep); absent: no rest. */
  pause?: (ms: number) => Promise<void>;
  /** Rest after a batch, as a share of the batch's time. Default 1. */
  restRatio?: number;
}): Promise<BatchedRun> {
  const startMs = opts.clock.nowMs();
  const restRatio = opts.restRatio ?? 1;
  let deleted = 0;
  let batches = 0;
  const result = (drained: boolean): BatchedRun => ({
    deleted,
    batches,
    drained,
    durationMs: opts.clock.nowMs() - startMs,
  });
  for (;;) {
    const batchStartMs = opts.clock.nowMs();
    const outcome = await opts.batch();
    deleted += outcome.deleted;
    batches++;
    if (!outcome.more) return result(true);
    const nowMs = opts.clock.nowMs();
    const restMs = (nowMs - batchStartMs) * restRatio;
    if (nowMs - startMs + restMs >= opts.budgetMs) return result(false);
    if (restMs > 0 && opts.pause) await opts.pause(restMs);
  }
}
