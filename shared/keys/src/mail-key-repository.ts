// The mail toolkit's own API keys (`lmk_…`): stored as SHA-256 plus the first eight hex
// characters of the body. Deleting a key only stamps `deleted_at`, so a key once imported into
// the product's public key list keeps its source row (and the public key stays usable).
import type { KeyPage } from './key-page.ts';

export const MAIL_KEY_SCOPES = ['sending_access', 'full_access'] as const;
export type MailKeyScope = (typeof MAIL_KEY_SCOPES)[number];

export interface MailKeyRecord {
  id: string;
  productId: string;
  name: string;
  scope: MailKeyScope;
  /** The one mail domain the key may send from; null when it may use every domain. */
  domainId: string | null;
  /** First eight hex characters of the key body. */
  visible: string;
  /** Member who created it; null when an area key created it. */
  createdBy: string | null;
  createdAt: Date;
}

/** What authentication needs: the stored hash, for the constant-time confirmation. */
export interface ActiveMailKey extends MailKeyRecord {
  hash: string;
}

export interface NewMailKey {
  productId: string;
  name: string;
  scope: MailKeyScope;
  domainId: string | null;
  hash: string;
  visible: string;
  createdBy: string | null;
}

export interface MailKeyRepository {
  /** Undefined when `domainId` is not a mail domain of the product (nothing is stored). */
  create(key: NewMailKey): Promise<MailKeyRecord | undefined>;
  /** Keys not deleted, newest first. */
  list(productId: string, page: KeyPage): Promise<MailKeyRecord[]>;
  findActiveByHash(hash: string): Promise<ActiveMailKey | undefined>;
  /** True when a key of the product was active and is now deleted. */
  delete(productId: string, id: string): Promise<boolean>;
}
