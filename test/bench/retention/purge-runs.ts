// The purges as the benchmark runs them: the real createWebhookDeliveryPurge and createEmailPurge
// over every product of the database (as the actors' jobs run them), on the system clock, with the
// production budget and batch, from this process on a connection pool of its own. Each purge's
// statements go through a timing wrapper of the pool, so every run is recorded with its batches:
// how long each took and when it started, which says whether the run kept to "a run starts no
// batch once its budget is spent, so it overruns by at most one batch".
import { performance } from 'node:perf_hooks';
import { type Clock, sleep } from '@lattice/core';
import { createEmailPurge, createWebhookDeliveryPurge, type RetentionPurge } from '@lattice/mail';
import type { Db } from '@lattice/store';

export interface PurgeSettings {
  budgetMs: number;
  batchSize: number;
  webhookDeliveryDays: number;
  mailDays: number;
}

/** One statement of a run: when it started (ms since the run started) and how long it took. */
interface Statement {
  atMs: number;
  ms: number;
}

export interface PurgeRunRecord {
  /** The purge (its table, as `lattice_retention_*{table}` names it). */
  table: string;
  /** The measurement it ran in. */
  label: string;
  /** When it started, ms since the measurement started, and epoch ms (the load's samples' clock). */
  startMs: number;
  startEpochMs: number;
  /** Around runOnce, measured here. */
  wallMs: number;
  /** As the run reports it. */
  durationMs: number;
  deleted: number;
  deletedByTable: Record<string, number>;
  batches: number;
  drained: boolean;
  /** Statements the run made (one a batch), the longest, the last. */
  statements: number;
  maxStatementMs: number;
  lastStatementMs: number;
  /** Statements started once the budget was spent (the documented bound allows none), and when (ms into the run). */
  startedAfterBudget: number;
  lateStartsMs: number[];
}

/** A purge whose statements are timed. */
export interface TimedPurge {
  purge: RetentionPurge;
  /** Runs it once and records the run. */
  run(label: string, sinceMs: number): Promise<PurgeRunRecord>;
}

/** `db` with its `raw` statements timed into `out` (the purges use nothing else of it). */
function timedDb(db: Db, out: Statement[], startOf: () => number): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'raw')
        return (...args: unknown[]) => {
          const t0 = performance.now();
          return (Reflect.apply(target.raw, target, args) as Promise<unknown>).then((result) => {
            out.push({ atMs: t0 - startOf(), ms: performance.now() - t0 });
            return result;
          });
        };
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function timedPurge(make: (db: Db) => RetentionPurge, db: Db, budgetMs: number): TimedPurge {
  const statements: Statement[] = [];
  let runStart = 0;
  const purge = make(timedDb(db, statements, () => runStart));
  return {
    purge,
    async run(label, sinceMs) {
      statements.length = 0;
      runStart = performance.now();
      const run = await purge.runOnce();
      const wallMs = performance.now() - runStart;
      // 1 ms of slack: the purge reads the clock in whole milliseconds.
      const late = statements.filter((s) => s.atMs > budgetMs + 1);
      return {
        table: purge.table,
        label,
        startMs: runStart - sinceMs,
        startEpochMs: performance.timeOrigin + runStart,
        wallMs,
        durationMs: run.durationMs,
        deleted: Object.values(run.deletedByTable).reduce((a, b) => a + b, 0),
        deletedByTable: run.deletedByTable,
        batches: run.batches,
        drained: run.drained,
        statements: statements.length,
        maxStatementMs: Math.max(0, ...statements.map((s) => s.ms)),
        lastStatementMs: statements.at(-1)?.ms ?? 0,
        startedAfterBudget: late.length,
        lateStartsMs: late.map((s) => s.atMs),
      };
    },
  };
}

/** The two purges of the benchmark on `clock`. */
export function benchPurges(db: Db, clock: Clock, s: PurgeSettings): TimedPurge[] {
  // Resting between batches as the actors' job does (services/actors/src/retention-jobs.ts).
  const common = { clock, batchSize: s.batchSize, budgetMs: s.budgetMs, pause: (ms: number) => sleep(ms) };
  return [
    timedPurge(
      (timed) => createWebhookDeliveryPurge({ ...common, db: timed, retentionDays: s.webhookDeliveryDays }),
      db,
      s.budgetMs,
    ),
    timedPurge(
      (timed) => createEmailPurge({ ...common, db: timed, retentionDays: s.mailDays }),
      db,
      s.budgetMs,
    ),
  ];
}

export interface PurgeLoops {
  /** Stops starting runs; resolves once the runs under way have finished. */
  stop(): Promise<void>;
}

/**
 * The purges one after another in a single loop, as the actors' retention job runs them (never two
 * at the database at once): a pass every `intervalMs` (the next one at once when a pass took
 * longer), each run recorded by `onRun`.
 */
export function startPurgeLoops(
  purges: readonly TimedPurge[],
  intervalMs: number,
  label: string,
  onRun: (run: PurgeRunRecord) => void,
): PurgeLoops {
  const since = performance.now();
  const abort = new AbortController();
  const loop = (async () => {
    while (!abort.signal.aborted) {
      const started = performance.now();
      for (const p of purges) {
        if (abort.signal.aborted) break;
        onRun(await p.run(label, since));
      }
      const wait = intervalMs - (performance.now() - started);
      if (wait > 0) await sleep(wait, abort.signal).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}
