// Retention: history rows are kept for max(history window, archive) per namespace, then deleted.
// Rows past the window but inside the archive stay in the table and are never served by history
// reads. Deletion runs in bounded batches (one short transaction each), so a large backlog never
// holds long locks; run it periodically from the actors role.
import { type Clock, type Logger, systemClock } from '@lattice/core';
import type { Knex } from 'knex';

export interface HistoryPurgeOptions {
  db: Knex;
  logger: Logger;
  clock?: Clock;
  /** Rows deleted per statement. */
  batchSize?: number;
  /** Purge only these products' namespaces (default: every product). */
  productIds?: readonly string[];
}

export interface HistoryPurgeRun {
  namespaces: number;
  deleted: number;
  durationMs: number;
}

export interface HistoryPurge {
  runOnce(): Promise<HistoryPurgeRun>;
}

const DAY_MS = 86_400_000;
const NAMESPACES_PER_PAGE = 500;

/** How long a namespace keeps rows: the longer of the window and the archive. */
export function retentionMs(policy: { historyWindowSeconds: number; archiveDays: number }): number {
  return Math.max(policy.historyWindowSeconds * 1000, policy.archiveDays * DAY_MS);
}

interface NamespaceRow {
  product_id: string;
  name: string;
  history_window_seconds: number;
  archive_days: number;
}

export function createHistoryPurge(opts: HistoryPurgeOptions): HistoryPurge {
  const { db } = opts;
  const clock = opts.clock ?? systemClock;
  const batchSize = opts.batchSize ?? 5_000;
  const log = opts.logger.child({ component: 'history-purge' });

  async function purgeNamespace(ns: NamespaceRow, nowMs: number): Promise<number> {
    const cutoff = new Date(
      nowMs - retentionMs({ historyWindowSeconds: ns.history_window_seconds, archiveDays: ns.archive_days }),
    );
    let total = 0;
    for (let batch = 1; ; batch++) {
      // starts_with, not LIKE: channel names may hold `_`, a LIKE wildcard.
      const res = await db.raw(
        `delete from channel_history where ctid = any(array(
           select ctid from channel_history
           where product_id = ? and starts_with(channel, ?) and published_at < ?
           limit ?))`,
        [ns.product_id, `${ns.name}:`, cutoff, batchSize],
      );
      const deleted = res.rowCount ?? 0;
      total += deleted;
      if (deleted > 0) {
        log.info(
          {
            productId: ns.product_id,
            namespace: ns.name,
            batch,
            deleted,
            total,
            cutoff: cutoff.toISOString(),
          },
          'history purge progress',
        );
      }
      if (deleted < batchSize) return total;
    }
  }

  return {
    async runOnce() {
      const startMs = clock.nowMs();
      let namespaces = 0;
      let deleted = 0;
      let after: [string, string] | null = null;
      for (;;) {
        const q = db('realtime_namespaces')
          .select('product_id', 'name', 'history_window_seconds', 'archive_days')
          .orderBy([{ column: 'product_id' }, { column: 'name' }])
          .limit(NAMESPACES_PER_PAGE);
        if (after) q.whereRaw('(product_id, name) > (?, ?)', after);
        if (opts.productIds) q.whereIn('product_id', [...opts.productIds]);
        const page = (await q) as NamespaceRow[];
        for (const ns of page) {
          namespaces++;
          deleted += await purgeNamespace(ns, startMs);
        }
        if (page.length < NAMESPACES_PER_PAGE) break;
        const last = page[page.length - 1]!;
        after = [last.product_id, last.name];
      }
      const durationMs = clock.nowMs() - startMs;
      log.info({ namespaces, deleted, durationMs }, 'history purge done');
      return { namespaces, deleted, durationMs };
    },
  };
}
