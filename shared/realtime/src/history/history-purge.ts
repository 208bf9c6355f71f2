// Retention: history rows are kept for max(history window, archive) per namespace, then deleted.
// Rows past the window but inside the archive stay in the table and are never served by history
// reads. A deleted namespace's rows (published before its deletion, recorded in
// realtime_namespace_deletions) are deleted whatever their age; a namespace re-created under the
// same name keeps what it publishes after. Deletion runs in bounded batches (one short
// transaction each), so a large backlog never holds long locks; run it periodically from the
// actors role.
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
  /** Deleted namespaces whose rows this run removed (their records are gone with them). */
  deletedNamespaces: number;
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

interface DeletionRow {
  /** The record's ctid: removed by it, as deleted_at has more precision than a JS Date. */
  row_id: string;
  product_id: string;
  name: string;
  deleted_at: Date;
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

  /** Deletes, in batches, the rows of `namespace` published before `cutoff`. */
  async function purgeRows(
    productId: string,
    namespace: string,
    cutoff: Date,
    reason: string,
  ): Promise<number> {
    let total = 0;
    for (let batch = 1; ; batch++) {
      // starts_with, not LIKE: channel names may hold `_`, a LIKE wildcard.
      const res = await db.raw(
        `delete from channel_history where ctid = any(array(
           select ctid from channel_history
           where product_id = ? and starts_with(channel, ?) and published_at < ?
           limit ?))`,
        [productId, `${namespace}:`, cutoff, batchSize],
      );
      const deleted = res.rowCount ?? 0;
      total += deleted;
      if (deleted > 0) {
        log.info(
          { productId, namespace, reason, batch, deleted, total, cutoff: cutoff.toISOString() },
          'history purge progress',
        );
      }
      if (deleted < batchSize) return total;
    }
  }

  function purgeNamespace(ns: NamespaceRow, nowMs: number): Promise<number> {
    const cutoff = new Date(
      nowMs - retentionMs({ historyWindowSeconds: ns.history_window_seconds, archiveDays: ns.archive_days }),
    );
    return purgeRows(ns.product_id, ns.name, cutoff, 'retention');
  }

  /** Every row a deleted namespace published before its deletion; then the record goes. */
  async function purgeDeletions(): Promise<{ namespaces: number; deleted: number }> {
    let namespaces = 0;
    let deleted = 0;
    for (;;) {
      const q = db('realtime_namespace_deletions')
        .select(db.raw('ctid::text as row_id'), 'product_id', 'name', 'deleted_at')
        .orderBy([{ column: 'product_id' }, { column: 'name' }, { column: 'deleted_at' }])
        .limit(NAMESPACES_PER_PAGE);
      if (opts.productIds) q.whereIn('product_id', [...opts.productIds]);
      const page = (await q) as DeletionRow[];
      for (const d of page) {
        deleted += await purgeRows(d.product_id, d.name, d.deleted_at, 'namespace deleted');
        await db('realtime_namespace_deletions').whereRaw('ctid = ?::tid', [d.row_id]).delete();
        namespaces++;
      }
      // Each handled record is removed, so the next page starts from the top again.
      if (page.length < NAMESPACES_PER_PAGE) return { namespaces, deleted };
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
      const deletions = await purgeDeletions();
      deleted += deletions.deleted;
      const durationMs = clock.nowMs() - startMs;
      log.info(
        { namespaces, deletedNamespaces: deletions.namespaces, deleted, durationMs },
        'history purge done',
      );
      return { namespaces, deletedNamespaces: deletions.namespaces, deleted, durationMs };
    },
  };
}
