// What the page reads from the management API, typed as the JSON Schemas of schemas/http say
// (organization-product.json, public-key-fields.json, public-key-list.json, error-body.json).
// The browser tests run the page against the real API, so a drift shows up there.
import type { PublicMethod, Toolkit } from '@lattice/http/public-routes';

export type Environment = 'production' | 'development';
export const ENVIRONMENTS: readonly Environment[] = ['production', 'development'];

export type Role = 'owner' | 'admin' | 'member';

export interface ProductView {
  id: string;
  name: string;
  created_at: string;
  caller: { credential_kind: string; role: Role | null };
}

export type Scope =
  | { kind: 'product' }
  | { kind: 'toolkit'; toolkit: Toolkit }
  | { kind: 'route'; toolkit: Toolkit; method: PublicMethod; path: string };

export interface PublicKeyView {
  id: string;
  name: string;
  /** `lpk_`, or `lmk_` / `rtk_` for imported keys. */
  prefix: string;
  /** The eight hex characters after the prefix: all the list ever shows of a key. */
  visible: string;
  toolkits: Toolkit[];
  scope: Scope;
  environment: Environment;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at?: string;
  creator?: string;
  imported: boolean;
  imported_from?: Toolkit;
}

export interface KeyPage {
  data: PublicKeyView[];
  next_cursor: string | null;
}

export interface CreatedKey extends PublicKeyView {
  /** The full secret, in the creation answer only. */
  key: string;
}

export interface FieldProblem {
  path: string;
  message: string;
}
