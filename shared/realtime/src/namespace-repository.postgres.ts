import { isUuid } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import type { NamespaceRecord, NamespaceRepository } from './namespace-repository.ts';
import type { NamespacePolicy } from './token-request.ts';

interface Row {
  product_id: string;
  name: string;
  presence: boolean;
  client_events: boolean;
  history_window_seconds: number;
  archive_days: number;
  created_at: Date;
  updated_at: Date;
}

function toRecord(r: Row): NamespaceRecord {
  return {
    productId: r.product_id,
    name: r.name,
    presence: r.presence,
    clientEvents: r.client_events,
    historyWindowSeconds: r.history_window_seconds,
    archiveDays: r.archive_days,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function createPostgresNamespaceRepository(db: DbExecutor): NamespaceRepository {
  const table = () => db('realtime_namespaces');
  return {
    async put(productId, name, policy) {
      const { rows } = await db.raw(
        `insert into realtime_namespaces (product_id, name, presence, client_events, history_window_seconds, archive_days)
         values (?, ?, ?, ?, ?, ?)
         on conflict (product_id, name) do update set presence = excluded.presence,
           client_events = excluded.client_events, history_window_seconds = excluded.history_window_seconds,
           archive_days = excluded.archive_days, updated_at = now()
         returning *, (xmax = 0) as created`,
        [
          productId,
          name,
          policy.presence,
          policy.clientEvents,
          policy.historyWindowSeconds,
          policy.archiveDays,
        ],
      );
      const row = rows[0] as Row & { created: boolean };
      return { namespace: toRecord(row), created: row.created };
    },
    async get(productId, name) {
      if (!isUuid(productId)) return undefined;
      const row = (await table().where({ product_id: productId, name }).first()) as Row | undefined;
      return row ? toRecord(row) : undefined;
    },
    async list(productId, page) {
      if (!isUuid(productId)) return [];
      const q = table().where({ product_id: productId }).orderBy('name').limit(page.limit);
      if (page.after !== undefined) q.andWhere('name', '>', page.after);
      return ((await q) as Row[]).map(toRecord);
    },
    async delete(productId, name) {
      if (!isUuid(productId)) return false;
      // The deletion is recorded with it, for the history purge (migration 0006).
      return db.transaction(async (trx) => {
        const deleted = await trx('realtime_namespaces').where({ product_id: productId, name }).delete();
        if (deleted === 0) return false;
        await trx('realtime_namespace_deletions').insert({ product_id: productId, name });
        return true;
      });
    },
    async policies(productId, names) {
      const result = new Map<string, NamespacePolicy>();
      if (!isUuid(productId) || names.length === 0) return result;
      const rows = (await table()
        .where({ product_id: productId })
        .whereIn('name', [...new Set(names)])) as Row[];
      for (const r of rows) result.set(r.name, toRecord(r));
      return result;
    },
  };
}
