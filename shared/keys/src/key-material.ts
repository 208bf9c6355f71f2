// Credential values: a prefix naming the kind, then 32 hex characters (128 random bits). Stored
// as SHA-256 plus the first eight hex characters of the body, which listings show.
import { mintSecret, parseSecret, sha256Hex } from '@lattice/core';

export const KEY_PREFIXES = {
  publicKey: 'lpk_',
  memberToken: 'lmt_',
  mailKey: 'lmk_',
  realtimeKey: 'rtk_',
} as const;

export interface MintedKey {
  /** The plaintext; returned to the caller once and never stored. */
  secret: string;
  hash: string;
  visible: string;
}

export function mintKey(prefix: string): MintedKey {
  const secret = mintSecret(prefix);
  return { secret, hash: sha256Hex(secret), visible: secret.slice(prefix.length, prefix.length + 8) };
}

/** The prefix of a well-formed key value, or null. */
export function keyPrefixOf(value: string): string | null {
  return parseSecret(value)?.prefix ?? null;
}
