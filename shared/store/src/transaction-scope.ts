// A unit of work that repositories join without being told: `scope.db` is a stand-in for the
// pool that, inside `scope.run(fn)`, sends every statement to that run's transaction instead.
// Repositories built once on `scope.db` therefore write in the caller's transaction when there
// is one, and on the pool otherwise, so a change and its audit entry commit or roll back together
// without threading a transaction through every call (docs/organization.md "Audit log").
//
// Guarantees:
// - Everything `fn` (and what it awaits) sends through `scope.db` runs in one transaction, which
//   commits when `fn` resolves and rolls back when it throws.
// - `afterCommit` callbacks run only after a commit, in order, never after a rollback; outside a
//   run they run at once. Use them for announcements others act on (an edge reloading keys must
//   see the committed rows).
// - A nested `run` joins the outer transaction.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { Db } from './db.ts';

interface Frame {
  trx: Knex.Transaction;
  afterCommit: Array<() => void>;
}

export interface TransactionScope {
  /** The pool, or the current run's transaction: build repositories on this. */
  readonly db: Db;
  run<T>(fn: () => Promise<T>): Promise<T>;
  afterCommit(callback: () => void): void;
  /** True inside a run. */
  active(): boolean;
}

export function createTransactionScope(pool: Db): TransactionScope {
  const frames = new AsyncLocalStorage<Frame>();
  const executor = (): Knex | Knex.Transaction => frames.getStore()?.trx ?? pool;

  const db = new Proxy(pool, {
    apply(_target, thisArg, args) {
      return Reflect.apply(executor() as unknown as (...a: unknown[]) => unknown, thisArg, args);
    },
    get(_target, property) {
      const target = executor();
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

  return {
    db,
    async run(fn) {
      if (frames.getStore()) return fn();
      const afterCommit: Array<() => void> = [];
      const result = await pool.transaction((trx) => frames.run({ trx, afterCommit }, fn));
      for (const callback of afterCommit) callback();
      return result;
    },
    afterCommit(callback) {
      const frame = frames.getStore();
      if (frame) frame.afterCommit.push(callback);
      else callback();
    },
    active: () => frames.getStore() !== undefined,
  };
}
