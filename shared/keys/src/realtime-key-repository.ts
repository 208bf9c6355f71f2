// The realtime toolkit's own API keys (`rtk_…`): stored as SHA-256 plus the first eight hex
// characters of the body; the name is optional. Deleting only stamps `deleted_at` (see the mail
// keys for why).
import type { KeyPage } from './key-page.ts';

export interface RealtimeKeyRecord {
  id: string;
  productId: string;
  name: string | null;
  /** First eight hex characters of the key body. */
  visible: string;
  /** Member who created it; null when an area key created it. */
  createdBy: string | null;
  createdAt: Date;
}

/** What authentication needs: the stored hash, for the constant-time confirmation. */
export interface ActiveRealtimeKey extends RealtimeKeyRecord {
  hash: string;
}

export interface NewRealtimeKey {
  productId: string;
  name: string | null;
  hash: string;
  visible: string;
  createdBy: string | null;
}

export interface RealtimeKeyRepository {
  create(key: NewRealtimeKey): Promise<RealtimeKeyRecord>;
  /** Keys not deleted, newest first. */
  list(productId: string, page: KeyPage): Promise<RealtimeKeyRecord[]>;
  findActiveByHash(hash: string): Promise<ActiveRealtimeKey | undefined>;
  /** True when a key of the product was active and is now deleted. */
  delete(productId: string, id: string): Promise<boolean>;
}
