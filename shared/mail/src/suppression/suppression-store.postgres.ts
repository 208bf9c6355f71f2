// The suppression list in PostgreSQL (table mail_suppressions, primary key product + address).
import type { DbExecutor } from '@lattice/store';
import type { Suppression, SuppressionReason, SuppressionStore } from './suppression-store.ts';

interface Row {
  address: string;
  reason: SuppressionReason;
  email_id: string | null;
  created_at: Date;
}

function fromRow(row: Row): Suppression {
  return { address: row.address, reason: row.reason, emailId: row.email_id, createdAt: row.created_at };
}

export function createPostgresSuppressionStore(db: DbExecutor): SuppressionStore {
  return {
    async isSuppressed(productId, address) {
      const row = await db('mail_suppressions')
        .where({ product_id: productId, address: address.toLowerCase() })
        .first('address');
      return row !== undefined;
    },
    async add(productId, entry) {
      const address = entry.address.toLowerCase();
      const inserted = (await db('mail_suppressions')
        .insert({ product_id: productId, address, reason: entry.reason, email_id: entry.emailId })
        .onConflict(['product_id', 'address'])
        .ignore()
        .returning(['address', 'reason', 'email_id', 'created_at'])) as Row[];
      if (inserted[0]) return { entry: fromRow(inserted[0]), created: true };
      const existing = (await db('mail_suppressions')
        .where({ product_id: productId, address })
        .first('address', 'reason', 'email_id', 'created_at')) as Row | undefined;
      // Deleted between the two statements: add again (rare; one more round).
      if (!existing) return this.add(productId, entry);
      return { entry: fromRow(existing), created: false };
    },
    async remove(productId, address) {
      const n = await db('mail_suppressions')
        .where({ product_id: productId, address: address.toLowerCase() })
        .delete();
      return n > 0;
    },
    async list(productId, page) {
      const q = db('mail_suppressions')
        .where({ product_id: productId })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'address', order: 'desc' },
        ])
        .limit(page.limit)
        .select('address', 'reason', 'email_id', 'created_at');
      if (page.afterAddress !== undefined) {
        q.whereRaw(
          '(created_at, address) < (select created_at, address from mail_suppressions where product_id = ? and address = ?)',
          [productId, page.afterAddress.toLowerCase()],
        );
      }
      return ((await q) as Row[]).map(fromRow);
    },
  };
}
