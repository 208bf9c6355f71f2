// One resolver per credential kind, chosen by the token's prefix. Adding area keys (`lmk_`,
// `rtk_`) means adding a resolver; the Bearer parsing and error answers stay in one place.
import type { Principal } from '@lattice/http';

export interface CredentialResolver {
  /** Token prefix this resolver owns, e.g. `lmt_`. */
  prefix: string;
  /** The principal for a well-formed token of this prefix, or null if no active credential matches. */
  resolve(token: string): Promise<Principal | null>;
}
