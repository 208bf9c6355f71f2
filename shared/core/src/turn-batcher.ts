// Gather within one event-loop turn, flush together. Calls that arrive in the same turn (the keys
// of one Kafka batch applied concurrently, the requests of one socket read) are handed over as one
// batch once the turn is over, so they can share one round trip: one Redis write, one SQL
// statement. A batch is what arrived before its flush; what arrives during the flush goes to the
// next one. Nothing is allocated per call beyond the caller's item (the hot paths of the rate
// limiter and the publish quota run through here).

/**
 * When a batch leaves: 'turn' after the turn's I/O callbacks (setImmediate), so the calls of
 * every request read in that turn ride together; 'microtask' as soon as the current task's
 * promise jobs have run, for the calls of one synchronous stretch only.
 */
export type TurnBoundary = 'turn' | 'microtask';

export interface TurnBatcherOptions {
  /** Default 'turn'. */
  boundary?: TurnBoundary;
}

export interface TurnBatcher<T> {
  add(item: T): void;
}

export interface KeyedTurnBatcher<K, T> {
  /** Adds `item` to the group of `key`; groups keep their items in arrival order. */
  add(key: K, item: T): void;
}

function deferral(boundary: TurnBoundary = 'turn'): (run: () => void) => void {
  return boundary === 'turn' ? setImmediate : queueMicrotask;
}

/** Hands `flush` the items added within one turn, in arrival order. */
export function createTurnBatcher<T>(
  flush: (items: T[]) => void,
  options: TurnBatcherOptions = {},
): TurnBatcher<T> {
  const defer = deferral(options.boundary);
  let items: T[] = [];
  const run = (): void => {
    const batch = items;
    items = [];
    flush(batch);
  };
  return {
    add(item) {
      // The first item of a turn schedules the flush; the others only join.
      if (items.push(item) === 1) defer(run);
    },
  };
}

/** Hands `flush` the items added within one turn, grouped by key (groups in first-arrival order). */
export function createKeyedTurnBatcher<K, T>(
  flush: (groups: Map<K, T[]>) => void,
  options: TurnBatcherOptions = {},
): KeyedTurnBatcher<K, T> {
  const defer = deferral(options.boundary);
  let groups = new Map<K, T[]>();
  const run = (): void => {
    const batch = groups;
    groups = new Map();
    flush(batch);
  };
  return {
    add(key, item) {
      const group = groups.get(key);
      if (group !== undefined) {
        group.push(item);
        return;
      }
      if (groups.size === 0) defer(run);
      groups.set(key, [item]);
    },
  };
}
