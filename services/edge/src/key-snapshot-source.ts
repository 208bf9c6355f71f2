// What the key check reads: the environment's public keys as one in-memory snapshot. The
// PostgreSQL-backed holder (key-snapshot-holder.ts) is the implementation; tests and the
// benchmark may hand the app any other.
import type { KeySnapshot } from '@lattice/keys';
import type { ReloadTrigger } from './edge-metrics.ts';

export interface KeySnapshotSource {
  /** The snapshot in use; null until a first load succeeded, and then keyed routes fail closed. */
  current(): KeySnapshot | null;
}

export interface KeySnapshotHolder extends KeySnapshotSource {
  /** First load, then the refresh timer. Resolves after the first attempt, successful or not. */
  start(): Promise<void>;
  /**
   * Loads now. A call made while a load runs gets one more load after it (the running query may
   * predate the change the caller knows about). Resolves true when the load it waited for succeeded.
   */
  reload(trigger?: ReloadTrigger): Promise<boolean>;
  /** Debounced reload, for change notifications: a burst of changes costs one load. */
  requestReload(): void;
  /** Successful loads so far; tests wait on it to see a refresh happen. */
  generation(): number;
  /**
   * The last snapshot loaded, also once it is too old to be served (for the age metric: an edge
   * failing closed on a stale snapshot must still show how stale).
   */
  lastLoaded(): KeySnapshot | null;
  /** Stops the timers; the last snapshot stays readable. */
  close(): void;
}
