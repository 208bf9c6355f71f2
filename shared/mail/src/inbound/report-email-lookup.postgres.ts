// Report matching's lookup in mail_emails: a read of columns the accept path and the mail sender
// own (0007_mail.ts); the receiver writes nothing there, its events go through mail.events.
import type { DbExecutor } from '@lattice/store';
import type { ReportEmailLookup, ReportedEmail } from './report-email-lookup.ts';

interface Row {
  id: string;
  product_id: string;
  to_address: string;
  provider_message_id: string | null;
}

export function createPostgresReportEmailLookup(db: DbExecutor): ReportEmailLookup {
  return {
    async find(ids) {
      if (ids.length === 0) return [];
      const rows = (await db('mail_emails')
        .whereIn('id', ids)
        .select('id', 'product_id', 'to_address', 'provider_message_id')) as Row[];
      return rows.map(
        (r): ReportedEmail => ({
          id: r.id,
          productId: r.product_id,
          toAddress: r.to_address.toLowerCase(),
          providerMessageId: r.provider_message_id,
        }),
      );
    },
  };
}
