// Importing the area keys of a toolkit into the product's public key list. An imported key is a
// second record with the same hash: the key value (and its `lmk_`/`rtk_` prefix), visible part,
// name and creation date carry over; the creator does not (it is absent on imported keys), nor
// does a mail key's domain lock (a public key is never domain-restricted). Deleting the source
// closes the toolkit's own API only; revoking the public key closes the public edge only.
import type { Environment } from '@lattice/core';
import type { ImportSource, PublicKeyRecord } from './public-key-repository.ts';
import type { PublicKeyScope } from './scope.ts';

/** Imported keys serve the production edge; development keys are always minted. */
export const IMPORT_ENVIRONMENT: Environment = 'production';

/** The name of an imported realtime key that had none. */
export const UNNAMED_REALTIME_IMPORT_NAME = 'Imported from realtime';

/** Mail keys reach both keyed mail routes; realtime keys the whole realtime toolkit. */
export function importedScope(toolkit: ImportSource): PublicKeyScope {
  return { kind: 'toolkit', toolkit };
}

export interface AreaKeyImporter {
  /**
   * Copies every active (not deleted) key of `toolkit` that the product has not imported
   * before, whatever became of that earlier import: a revoked imported key stays revoked.
   * Answers the public keys created, newest first; none when there was nothing new.
   */
  importKeys(productId: string, toolkit: ImportSource): Promise<PublicKeyRecord[]>;
}
