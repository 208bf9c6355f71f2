// Every column of the mail toolkit that holds a value sealed with the platform keyring
// (sealSecret in @lattice/core), with the purpose it was sealed for. `lattice secrets reseal`
// re-seals these (with the other toolkits' lists: services/cli/src/sealed-columns.ts) after a
// rotation, so a new sealed column belongs here; the suite checks that every `*_sealed` column of
// the schema is listed (test/integration/cli-secrets.test.ts).
import type { SealedColumn } from '@lattice/store';
import { DKIM_SEAL_PURPOSE } from './domains/dkim-key.ts';
import { WEBHOOK_SECRET_PURPOSE } from './webhooks/webhook-signature.ts';

const ID = { column: 'id', type: 'uuid' } as const;

export const MAIL_SEALED_COLUMNS: readonly SealedColumn[] = [
  // Deleted endpoints keep their row (and secret) so their pending deliveries fail in order.
  { table: 'mail_webhook_endpoints', key: ID, column: 'secret_sealed', purpose: WEBHOOK_SECRET_PURPOSE },
  { table: 'mail_domains', key: ID, column: 'dkim_private_key_sealed', purpose: DKIM_SEAL_PURPOSE },
];
