// The edge's public key snapshot of one environment (DESIGN "Scaling"): loaded at start, every
// refreshMs, and early (debounced) on a change notification. The query takes active keys plus
// keys revoked within the last window, so a revoked key answers 403 for one window and 401 after
// it (the key check compares its revocation time against revokedGraceMs = refreshMs).
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
  systemClock,
} from '@lattice/core';
import { createKeySnapshot, type KeySnapshot, type PublicKeyRepository } from '@lattice/keys';
import { type EdgeMetrics, NO_EDGE_METRICS, type ReloadTrigger } from './edge-metrics.ts';
import type { KeySnapshotHolder } from './key-snapshot-source.ts';

export interface KeySnapshotHolderOptions {
  environment: Environment;
  keys: Pick<PublicKeyRepository, 'snapshotKeys'>;
  /** Period of the refresh, and the window a revoked key stays in the snapshot. */
  refreshMs: number;
  logger: Logger;
  metrics?: EdgeMetrics;
  clock?: Clock;
  /** Quiet time after a change notification before loading. Default 50. */
  debounceMs?: number;
  /** First retry delay after a failed load; doubles up to refreshMs. Default 250. */
  retryInitialMs?: number;
}

export function createKeySnapshotHolder(opts: KeySnapshotHolderOptions): KeySnapshotHolder {
  const { environment, keys, refreshMs } = opts;
  const clock = opts.clock ?? systemClock;
  const metrics = opts.metrics ?? NO_EDGE_METRICS;
  const debounceMs = opts.debounceMs ?? 50;
  const retry = {
    initialMs: Math.min(opts.retryInitialMs ?? 250, refreshMs),
    maxMs: refreshMs,
    jitterRatio: 0.2,
  };
  const log = opts.logger.child({ component: 'key-snapshot', environment });

  let snapshot: KeySnapshot | null = null;
  let generation = 0;
  let failuresInRow = 0;
  let closed = false;
  let refreshTimer: NodeJS.Timeout | undefined;
  let debounceTimer: NodeJS.Timeout | null = null;
  let running: Promise<boolean> | null = null;
  let queued: Promise<boolean> | null = null;

  function schedule(delayMs: number): void {
    clearTimeout(refreshTimer);
    if (closed) return;
    refreshTimer = setTimeout(() => void reload('timer'), delayMs);
    // The HTTP server keeps the process alive; a pending refresh must not.
    refreshTimer.unref();
  }

  async function loadOnce(trigger: ReloadTrigger): Promise<boolean> {
    const startedMs = clock.nowMs();
    try {
      const rows = await keys.snapshotKeys(environment, new Date(startedMs - refreshMs));
      snapshot = createKeySnapshot(rows, startedMs);
      generation += 1;
      const durationMs = clock.nowMs() - startedMs;
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
    async start() {
      await reload('start');
    },
    reload,
    requestReload() {
      // Counted from the first notification of a burst, not the last: a steady stream of changes
      // must not postpone the load indefinitely. Later ones queue behind the running load.
      if (closed || debounceTimer) return;
      debounceTimer = setTimeout(() => {
        debounceTimer = null;
        void reload('notification');
      }, debounceMs);
      debounceTimer.unref();
    },
    close() {
      closed = true;
      clearTimeout(refreshTimer);
      if (debounceTimer) clearTimeout(debounceTimer);
    },
  };
}
