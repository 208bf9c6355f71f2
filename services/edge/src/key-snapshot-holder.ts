// The edge's public key snapshot of one environment (DESIGN "Scaling"): loaded at start, every
// refreshMs, and early (debounced) on a change notification. The query takes active keys plus
// keys revoked within the last window, so a revoked key answers 403 for one window and 401 after
// it (the key check compares its revocation time against revokedGraceMs = refreshMs).
//
// Refreshes are incremental when the repository offers `changedSince`: the holder keeps its Map and
// applies only the rows changed since the previous load (by the database's clock, less a margin for
// transactions that committed late), so a refresh costs a few rows instead of rebuilding a Map of
// every key (allocation and GC on the request path). Keys revoked for longer than a window are
// evicted on each load (the key check answers 401 for them by time anyway). A full load runs at
// start and every fullReloadMs as a safety net.
//
// A failed load keeps the last good snapshot (logged, counted): a database outage must not take
// the public routes down with it, and the age gauge tells how stale the snapshot has become.
// Before the first success there is no snapshot and keyed routes answer 503 (fail closed); loads
// are then retried with backoff instead of waiting a full window.
import {
  backoffDelayMs,
  type Clock,
  type Environment,
  errorMessage,
  type Logger,
  type Scheduler,
  systemScheduler,
  type Timer,
} from '@lattice/core';
import type { KeySnapshot, PublicKeyRepository, SnapshotKey } from '@lattice/keys';
import type { EdgeMetrics, ReloadTrigger } from './edge-metrics.ts';
import type { KeySnapshotHolder } from './key-snapshot-source.ts';

export interface KeySnapshotHolderOptions {
  environment: Environment;
  /** Without `changedSince`, every load is a full one. */
  keys: Pick<PublicKeyRepository, 'snapshotKeys'> & Partial<Pick<PublicKeyRepository, 'changedSince'>>;
  /** Period of the refresh, and the window a revoked key stays in the snapshot. */
  refreshMs: number;
  logger: Logger;
  metrics: EdgeMetrics;
  /** Default: the scheduler. */
  clock?: Clock;
  /** Runs the refresh, retry, debounce and expiry timers. Default systemScheduler. */
  scheduler?: Scheduler;
  /** Quiet time after a change notification before loading. Default 50. */
  debounceMs?: number;
  /** First retry delay after a failed load; doubles up to refreshMs. Default 250. */
  retryInitialMs?: number;
  /** Period of the full loads between incremental ones. Default 600 000 (10 minutes). */
  fullReloadMs?: number;
  /**
   * How long a snapshot is served without a successful load since; after that keyed routes
   * answer 503 until a load succeeds (fail closed). Bounds how long a revoked key can pass while
   * this edge cannot read the database. Default: no bound.
   */
  maxAgeMs?: number;
}

/**
 * How far before the previous load's database time an incremental load starts reading: a change
 * made in a transaction that began before that load but committed after it carries an older
 * updated_at. Rows read twice are applied twice, harmlessly.
 */
const CHANGE_MARGIN_MS = 60_000;

const UNREF = { unref: true };

function snapshotOf(byHash: Map<string, SnapshotKey>, loadedAtMs: number): KeySnapshot {
  return { loadedAtMs, size: byHash.size, get: (hash) => byHash.get(hash) };
}

export function createKeySnapshotHolder(opts: KeySnapshotHolderOptions): KeySnapshotHolder {
  const { environment, keys, refreshMs } = opts;
  const scheduler = opts.scheduler ?? systemScheduler;
  const clock = opts.clock ?? scheduler;
  const { metrics } = opts;
  const debounceMs = opts.debounceMs ?? 50;
  const fullReloadMs = opts.fullReloadMs ?? 600_000;
  const retry = {
    initialMs: Math.min(opts.retryInitialMs ?? 250, refreshMs),
    maxMs: refreshMs,
    jitterRatio: 0.2,
  };
  const log = opts.logger.child({ component: 'key-snapshot', environment });

  let snapshot: KeySnapshot | null = null;
  let lastLoaded: KeySnapshot | null = null;
  // The Map behind `snapshot`, updated in place by incremental loads (synchronously, between
  // requests), and the hashes of the revoked keys in it, evicted once past their window.
  let byHash = new Map<string, SnapshotKey>();
  const revoked = new Set<string>();
  /** Database time of the last successful load; null until a full load succeeded. */
  let changesAsOf: Date | null = null;
  let lastFullMs = 0;
  let generation = 0;
  let failuresInRow = 0;
  let closed = false;
  let refreshTimer: Timer | undefined;
  let debounceTimer: Timer | null = null;
  let expiryTimer: Timer | undefined;
  let running: Promise<boolean> | null = null;
  let queued: Promise<boolean> | null = null;

  function schedule(delayMs: number): void {
    scheduler.clearTimer(refreshTimer);
    if (closed) return;
    // The HTTP server keeps the process alive; a pending refresh must not.
    refreshTimer = scheduler.setTimeout(() => void reload('timer'), delayMs, UNREF);
  }

  /**
   * Withholds the snapshot once it is maxAgeMs old, unless a load succeeds before. The age is
   * measured on the scheduler that runs the loads (from the start of the load), not on the
   * clock: a clock that jumps (a test's manual clock, shared with the rest of a platform) must
   * not expire a snapshot that the refresh timers keep fresh.
   */
  function armExpiry(loaded: KeySnapshot, startedOnSchedulerMs: number): void {
    const { maxAgeMs } = opts;
    if (maxAgeMs === undefined) return;
    scheduler.clearTimer(expiryTimer);
    expiryTimer = scheduler.setTimeout(
      () => {
        if (snapshot !== loaded) return;
        snapshot = null;
        log.error(
          { snapshotAgeMs: scheduler.nowMs() - startedOnSchedulerMs, maxAgeMs, failuresInRow },
          'key snapshot too old: keyed routes answer 503 until a load succeeds',
        );
      },
      Math.max(0, maxAgeMs - (scheduler.nowMs() - startedOnSchedulerMs)),
      UNREF,
    );
  }

  async function loadOnce(trigger: ReloadTrigger): Promise<boolean> {
    const startedMs = clock.nowMs();
    const startedOnSchedulerMs = scheduler.nowMs();
    try {
      const revokedAfterMs = startedMs - refreshMs;
      const revokedAfter = new Date(revokedAfterMs);
      const full = !keys.changedSince || changesAsOf === null || startedMs - lastFullMs >= fullReloadMs;
      let rows: SnapshotKey[];
      let asOf: Date | null = null;
      if (keys.changedSince) {
        const since = full || !changesAsOf ? null : new Date(changesAsOf.getTime() - CHANGE_MARGIN_MS);
        ({ keys: rows, asOf } = await keys.changedSince(environment, since, revokedAfter));
      } else {
        rows = await keys.snapshotKeys(environment, revokedAfter);
      }
      if (full) {
        byHash = new Map();
        revoked.clear();
        lastFullMs = startedMs;
      }
      for (const k of rows) {
        if (k.revokedAtMs === null) {
          byHash.set(k.hash, k);
          revoked.delete(k.hash);
        } else if (k.revokedAtMs > revokedAfterMs) {
          byHash.set(k.hash, k);
          revoked.add(k.hash);
        } else {
          byHash.delete(k.hash);
          revoked.delete(k.hash);
        }
      }
      if (!full) {
        for (const hash of revoked) {
          const k = byHash.get(hash);
          if (!k || k.revokedAtMs === null || k.revokedAtMs <= revokedAfterMs) {
            byHash.delete(hash);
            revoked.delete(hash);
          }
        }
      }
      changesAsOf = asOf;
      snapshot = snapshotOf(byHash, startedMs);
      lastLoaded = snapshot;
      armExpiry(snapshot, startedOnSchedulerMs);
      generation += 1;
      const durationMs = scheduler.nowMs() - startedOnSchedulerMs;
      metrics.snapshotReloaded(trigger, durationMs);
      if (failuresInRow > 0) log.info({ failuresInRow }, 'key snapshot loads recovered');
      else log.debug({ trigger, keys: snapshot.size, durationMs }, 'key snapshot loaded');
      failuresInRow = 0;
      schedule(refreshMs);
      return true;
    } catch (err) {
      failuresInRow += 1;
      metrics.snapshotReloadFailed(trigger);
      const fields = {
        trigger,
        err: errorMessage(err),
        failuresInRow,
        snapshotAgeMs: snapshot ? clock.nowMs() - snapshot.loadedAtMs : null,
      };
      // Logged at error while the edge has nothing to serve keyed routes with.
      if (snapshot) log.warn(fields, 'key snapshot load failed; serving the previous snapshot');
      else log.error(fields, 'key snapshot load failed; keyed routes answer 503 until a load succeeds');
      schedule(backoffDelayMs(failuresInRow, retry));
      return false;
    }
  }

  function reload(trigger: ReloadTrigger = 'manual'): Promise<boolean> {
    if (closed) return Promise.resolve(false);
    if (!running) {
      running = loadOnce(trigger).finally(() => {
        running = null;
      });
      return running;
    }
    // One follow-up load, shared by every caller that arrives while this one runs.
    queued ??= running.then(() => {
      queued = null;
      return reload(trigger);
    });
    return queued;
  }

  return {
    current: () => snapshot,
    generation: () => generation,
    lastLoaded: () => lastLoaded,
    async start() {
      await reload('start');
    },
    reload,
    requestReload() {
      // Counted from the first notification of a burst, not the last: a steady stream of changes
      // must not postpone the load indefinitely. Later ones queue behind the running load.
      if (closed || debounceTimer) return;
      debounceTimer = scheduler.setTimeout(
        () => {
          debounceTimer = null;
          void reload('notification');
        },
        debounceMs,
        UNREF,
      );
    },
    close() {
      closed = true;
      scheduler.clearTimer(refreshTimer);
      scheduler.clearTimer(expiryTimer);
      if (debounceTimer) scheduler.clearTimer(debounceTimer);
    },
  };
}
