// Announces public key changes so edges reload their snapshot early instead of at the next
// periodic refresh. Best effort by design: edges refresh every snapshot window anyway, so a
// lost announcement only delays a change by at most one window, and never fails a request.
import type { Environment } from '@lattice/core';

export type KeyChangeKind = 'created' | 'scope_updated' | 'revoked' | 'imported';

export interface KeyChange {
  productId: string;
  /** The edge environment whose snapshot changed. */
  environment: Environment;
  keyIds: readonly string[];
  change: KeyChangeKind;
}

export interface KeyChangeNotifier {
  /** Never rejects: a failure is logged by the implementation. */
  keyChanged(change: KeyChange): Promise<void>;
}
