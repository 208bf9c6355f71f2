import type { Environment } from '@lattice/core';
import type { SnapshotKey } from './key-check.ts';
import type { KeyPage } from './key-page.ts';
import type { PublicKeyScope } from './scope.ts';

export type PublicKeyStatus = 'active' | 'revoked';
export type ImportSource = 'mail' | 'realtime';

export interface PublicKeyRecord {
  id: string;
  productId: string;
  environment: Environment;
  name: string;
  prefix: string;
  /** First eight hex characters of the key body. */
  visible: string;
  scope: PublicKeyScope;
  status: PublicKeyStatus;
  createdAt: Date;
  /** Member who created it; null for imported keys. */
  createdBy: string | null;
  revokedAt: Date | null;
  importedFrom: ImportSource | null;
  sourceKeyId: string | null;
}

export interface NewPublicKey {
  productId: string;
  environment: Environment;
  name: string;
  prefix: string;
  hash: string;
  visible: string;
  scope: PublicKeyScope;
  createdBy: string | null;
  /** Imported keys keep their source's creation date. */
  createdAt?: Date;
  importedFrom?: ImportSource;
  sourceKeyId?: string;
}

export interface PublicKeyRepository {
  create(key: NewPublicKey): Promise<PublicKeyRecord>;
  /** Newest first; every key, or one page of them. */
  list(productId: string, environment?: Environment, page?: KeyPage): Promise<PublicKeyRecord[]>;
  get(productId: string, id: string): Promise<PublicKeyRecord | undefined>;
  /** Only an active key's scope changes; undefined when no active key has that id. */
  updateScope(productId: string, id: string, scope: PublicKeyScope): Promise<PublicKeyRecord | undefined>;
  /** Permanent; undefined when no active key has that id. */
  revoke(productId: string, id: string): Promise<PublicKeyRecord | undefined>;
  /** What an edge of `environment` serves: active keys and keys revoked after `revokedAfter`. */
  snapshotKeys(environment: Environment, revokedAfter: Date): Promise<SnapshotKey[]>;
  /**
   * For an incremental snapshot refresh: with `since` null, what snapshotKeys answers; otherwise
   * every key of `environment` whose row changed (created, scope changed, revoked) after `since`,
   * whatever its status. `asOf` is the database's time taken before the rows were read: the next
   * call passes it back (less a margin for transactions that committed late) as `since`.
   */
  changedSince(environment: Environment, since: Date | null, revokedAfter: Date): Promise<KeyChanges>;
}

export interface KeyChanges {
  keys: SnapshotKey[];
  asOf: Date;
}
