// The retention benchmark's figures and verdicts, computed from a run's rounds and purge runs only
// (the console lines and the report both read them from here).
import type { ExactnessCheck } from './exactness.ts';
import type { FillTimings } from './fill.ts';
import type { RoundLoad, Samples } from './load-round.ts';
import type { PurgeRunRecord } from './purge-runs.ts';

/** p99 with the purges running ÷ p99 without, at most this (issue #27 item 3). */
export const TARGET_P99_FACTOR = 1.5;

export type Arm = 'without' | 'with';

export interface RoundResult {
  arm: Arm;
  /** 1-based: the pair of rounds (one of each arm) it belongs to. */
  pair: number;
  load: RoundLoad;
  /** Purge runs during the round (with-purge rounds). */
  purgeRuns: PurgeRunRecord[];
  /** How far the purges' clock ran behind the real one in the round (days), with-purge rounds. */
  clockBehindDays?: number;
  /** The check after a with-purge round, at the latest cutoff any of its runs could have used. */
  check?: ExactnessCheck;
}

export interface BenchResult {
  at: Date;
  machine: string;
  settings: {
    deliveries: number;
    emails: number;
    unmatchedEvents: number;
    spreadDays: number;
    htmlBytes: number;
    fillEndpoints: number;
    roundSeconds: number;
    rounds: number;
    warmupSeconds: number;
    eventRate: number;
    sendRate: number;
    endpoints: number;
    purgeIntervalMs: number;
    budgetMs: number;
    batchSize: number;
    webhookDeliveryDays: number;
    mailDays: number;
    finalAheadMs: number;
    sendRatePerSecond: number;
    kafkaPartitions: number;
    logLevel: string;
  };
  fill: {
    timings: FillTimings;
    /** Rows and on-disk size (table, indexes, TOAST) of each filled table after the fill. */
    tables: Array<{ table: string; rows: number; bytes: number }>;
    /** The check at the final cutoff before any purge ran: what the purges are to remove and keep. */
    before: ExactnessCheck;
  };
  rounds: RoundResult[];
  /** The last runs, on a clock stopped at the final instant, until each purge drained. */
  finalRuns: PurgeRunRecord[];
  final: ExactnessCheck;
  /** Generated events left without their email after the final runs. */
  orphanEvents: number;
  loadAverage: { before: number; after: number };
}

export const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

export function percentileOf(values: readonly number[], p: number): number {
  const s = Float64Array.from(values).sort();
  return s.length === 0
    ? Number.NaN
    : s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** A purge run's span (epoch ms) and its purge. */
type Window = [from: number, to: number, table: string];

/**
 * The samples of `pick` over `rounds`; with `windows`, only those whose span overlaps runs of
 * at least `minPurges` (and at most `maxPurges`) distinct purges.
 */
function pooled(
  rounds: readonly RoundResult[],
  pick: (l: RoundLoad) => Samples,
  windows?: readonly Window[],
  minPurges = 1,
  maxPurges = Number.POSITIVE_INFINITY,
): number[] {
  return rounds.flatMap((r) => {
    const s = pick(r.load);
    return s.ms.filter((ms, i) => {
      if (!windows) return true;
      const from = s.at[i]!;
      const to = from + ms;
      const purges = new Set(windows.filter(([a, b]) => from <= b && to >= a).map((w) => w[2])).size;
      return purges >= minPurges && purges <= maxPurges;
    });
  });
}

export interface Latency {
  n: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const latencyOf = (values: number[]): Latency => ({
  n: values.length,
  p50Ms: percentileOf(values, 50),
  p99Ms: percentileOf(values, 99),
  maxMs: values.length ? Math.max(...values) : Number.NaN,
});

export interface PathFigures {
  without: Latency;
  /** Every sample of the with-purge rounds. */
  with: Latency;
  /** The with-purge rounds' samples in flight while a run that deleted a batch or more was under way. */
  during: Latency;
  /** `during`, split: samples in flight while runs of both purges worked, and while one purge's did. */
  duringBoth: Latency;
  duringOne: Latency;
  /** p99 during the purge's work ÷ p99 without (the verdict), and over whole rounds. */
  ratio: number;
  wholeRoundRatio: number;
  /** Each pair's with-round p99 ÷ its without-round p99. */
  pairRatios: number[];
}

export interface PurgeFigures {
  table: string;
  runs: number;
  deleted: number;
  /** Rows deleted per table in the rounds, and over every run (the final ones too). */
  deletedByTable: Record<string, number>;
  allDeletedByTable: Record<string, number>;
  /** Runs that stopped on the budget with rows left. */
  behind: number;
  /** Rows deleted a second of run time, over the runs that deleted a batch or more. */
  rowsPerSecond: number;
  maxWallMs: number;
  maxStatementMs: number;
  /** Batch time in the first run of each round and in its last run that deleted a batch or more. */
  batchMs: Array<{ label: string; firstMs: number; lastMs: number }>;
  /** Runs that started a batch once their budget was spent (the documented bound allows none). */
  lateRuns: number;
  late: Array<{ label: string; wallMs: number; statements: number; lateStartsMs: number[] }>;
  /** Runs that found less than a batch to delete (drained at once): their time, median and longest. */
  idleRuns: number;
  idleMedianMs: number;
  idleMaxMs: number;
  /** Runs longer than the budget plus their own longest batch. */
  overBound: number;
}

export interface Summary {
  deliveries: PathFigures;
  sends: PathFigures;
  accepts: { without: Latency; with: Latency };
  purges: PurgeFigures[];
  deliveriesMet: boolean;
  sendsMet: boolean;
  boundMet: boolean;
  exact: boolean;
  /** Every check after a with-purge round found nothing deleted that it had to keep. */
  roundChecksClean: boolean;
  cpu: Record<Arm, { machineBusy: number; postgres: number; actors: number; other: number }>;
  /**
   * Per with-purge round: how long purge work lasted (the union of the runs that deleted a batch
   * or more, s) and how many of those runs were under way at once on average (a run is its
   * batches back to back, each a statement a PostgreSQL backend works on).
   */
  purgeWork: Array<{ label: string; seconds: number; concurrency: number }>;
  /** Means over each arm's rounds: WAL written a round, its full-page images, the share of time stalled on I/O. */
  io: Record<Arm, { walBytes: number; walFullPageImages: number; ioSomeShare: number }>;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

function purgeFigures(r: BenchResult, table: string): PurgeFigures {
  const inRounds = r.rounds.flatMap((x) => x.purgeRuns).filter((p) => p.table === table);
  const all = [...inRounds, ...r.finalRuns.filter((p) => p.table === table)];
  const working = inRounds.filter((p) => p.deleted >= r.settings.batchSize);
  const idle = inRounds.filter((p) => p.drained && p.deleted < r.settings.batchSize);
  const byTable = (runs: PurgeRunRecord[]) => {
    const out: Record<string, number> = {};
    for (const p of runs) for (const [t, n] of Object.entries(p.deletedByTable)) out[t] = (out[t] ?? 0) + n;
    return out;
  };
  const perBatch = (p: PurgeRunRecord) => p.wallMs / Math.max(1, p.statements);
  return {
    table,
    runs: inRounds.length,
    deleted: inRounds.reduce((a, p) => a + p.deleted, 0),
    deletedByTable: byTable(inRounds),
    allDeletedByTable: byTable(all),
    behind: inRounds.filter((p) => !p.drained).length,
    rowsPerSecond:
      working.reduce((a, p) => a + p.deleted, 0) / (working.reduce((a, p) => a + p.wallMs, 0) / 1000),
    maxWallMs: Math.max(0, ...inRounds.map((p) => p.wallMs)),
    maxStatementMs: Math.max(0, ...inRounds.map((p) => p.maxStatementMs)),
    batchMs: r.rounds
      .filter((x) => x.arm === 'with')
      .map((x) => {
        const runs = x.purgeRuns.filter((p) => p.table === table);
        const busy = runs.filter((p) => p.deleted >= r.settings.batchSize);
        return {
          label: x.load.label,
          firstMs: runs[0] ? perBatch(runs[0]) : Number.NaN,
          lastMs: busy.length ? perBatch(busy.at(-1)!) : Number.NaN,
        };
      }),
    lateRuns: inRounds.filter((p) => p.startedAfterBudget > 0).length,
    late: inRounds
      .filter((p) => p.startedAfterBudget > 0)
      .map((p) => ({
        label: p.label,
        wallMs: p.wallMs,
        statements: p.statements,
        lateStartsMs: p.lateStartsMs ?? [],
      })),
    idleRuns: idle.length,
    idleMedianMs: percentileOf(
      idle.map((p) => p.wallMs),
      50,
    ),
    idleMaxMs: Math.max(0, ...idle.map((p) => p.wallMs)),
    overBound: inRounds.filter((p) => p.wallMs > r.settings.budgetMs + p.maxStatementMs + 5).length,
  };
}

export function summaryOf(r: BenchResult): Summary {
  const without = r.rounds.filter((x) => x.arm === 'without');
  const withPurge = r.rounds.filter((x) => x.arm === 'with');
  const windows = withPurge.flatMap((x) =>
    x.purgeRuns
      .filter((p) => p.deleted >= r.settings.batchSize)
      .map((p): Window => [p.startEpochMs, p.startEpochMs + p.wallMs, p.table]),
  );
  const path = (pick: (l: RoundLoad) => Samples): PathFigures => {
    const w = latencyOf(pooled(without, pick));
    const all = latencyOf(pooled(withPurge, pick));
    const during = latencyOf(pooled(withPurge, pick, windows));
    const duringBoth = latencyOf(pooled(withPurge, pick, windows, 2));
    const duringOne = latencyOf(pooled(withPurge, pick, windows, 1, 1));
    const pairs = [...new Set(r.rounds.map((x) => x.pair))].sort((a, b) => a - b);
    return {
      without: w,
      with: all,
      during,
      duringBoth,
      duringOne,
      ratio: during.p99Ms / w.p99Ms,
      wholeRoundRatio: all.p99Ms / w.p99Ms,
      pairRatios: pairs.map((k) => {
        const of = (arm: Arm) =>
          latencyOf(
            pooled(
              r.rounds.filter((x) => x.pair === k && x.arm === arm),
              pick,
            ),
          );
        return of('with').p99Ms / of('without').p99Ms;
      }),
    };
  };
  const deliveries = path((l) => l.deliveries);
  const sends = path((l) => l.sends);
  const purges = ['mail_webhook_deliveries', 'mail_emails'].map((t) => purgeFigures(r, t));
  const cpuOf = (rounds: RoundResult[]) => ({
    machineBusy: mean(rounds.map((x) => x.load.cpu.machineBusy)),
    postgres: mean(rounds.map((x) => x.load.cpu.postgres)),
    actors: mean(rounds.map((x) => x.load.cpu.actors)),
    other: mean(rounds.map((x) => x.load.cpu.other ?? Number.NaN)),
  });
  const ioOf = (rounds: RoundResult[]) => ({
    walBytes: mean(rounds.map((x) => x.load.io?.walBytes ?? Number.NaN)),
    walFullPageImages: mean(rounds.map((x) => x.load.io?.walFullPageImages ?? Number.NaN)),
    ioSomeShare: mean(rounds.map((x) => x.load.io?.ioSomeShare ?? Number.NaN)),
  });
  const purgeWork = withPurge.map((x) => {
    const spans = x.purgeRuns
      .filter((p) => p.deleted >= r.settings.batchSize)
      .map((p): [number, number] => [p.startEpochMs, p.startEpochMs + p.wallMs])
      .sort((a, b) => a[0] - b[0]);
    let union = 0;
    let end = Number.NEGATIVE_INFINITY;
    for (const [a, b] of spans) {
      if (b > end) union += b - Math.max(a, end);
      end = Math.max(end, b);
    }
    const busy = spans.reduce((sum, [a, b]) => sum + (b - a), 0);
    return { label: x.load.label, seconds: union / 1000, concurrency: union > 0 ? busy / union : Number.NaN };
  });
  return {
    deliveries,
    sends,
    purgeWork,
    io: { without: ioOf(without), with: ioOf(withPurge) },
    accepts: {
      without: latencyOf(pooled(without, (l) => l.accepts)),
      with: latencyOf(pooled(withPurge, (l) => l.accepts)),
    },
    purges,
    deliveriesMet: deliveries.ratio <= TARGET_P99_FACTOR,
    sendsMet: sends.ratio <= TARGET_P99_FACTOR,
    boundMet: purges.every((p) => p.lateRuns === 0 && p.overBound === 0),
    exact: r.final.tables.every((t) => t.left === 0 && t.lost === 0) && r.orphanEvents === 0,
    roundChecksClean: withPurge.every((x) => x.check?.tables.every((t) => t.lost === 0) ?? false),
    cpu: { without: cpuOf(without), with: cpuOf(withPurge) },
  };
}
