// Token signing keys live in PostgreSQL so every role of a deployment (edge and management sign,
// gateways verify) shares them without configuration. One active key per environment is created
// on first use; retired keys keep verifying tokens until they expire.
// The key bytes are sealed with the platform keyring (purpose `realtime-signing-key`), as DKIM
// keys are: every host needs the same LATTICE_SECRET_KEYS to sign and verify. Rows written before
// migration 0009 hold the key in plain text (`secret`) until `lattice secrets reseal` seals them;
// it is read when there is no sealed value. Opened keys are cached per kid (a key never changes;
// a reseal only changes its seal) and never logged.
import { randomBytes, randomUUID } from 'node:crypto';
import { type Environment, openSecret, SecretKeyError, type SecretKeyring, sealSecret } from '@lattice/core';
import type { DbExecutor, SealedColumn } from '@lattice/store';
import type { SigningKey } from './realtime-token.ts';

/** The secret keyring purpose sealing token signing keys (one purpose key per use). */
export const SIGNING_KEY_SEAL_PURPOSE = 'realtime-signing-key';

/** The realtime toolkit's sealed columns, for `lattice secrets reseal`. */
export const REALTIME_SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    table: 'realtime_signing_keys',
    key: { column: 'kid', type: 'text' },
    column: 'secret_sealed',
    purpose: SIGNING_KEY_SEAL_PURPOSE,
    plaintextColumn: 'secret',
  },
];

export interface SigningKeyStore {
  /** The environment's active key, created when there is none. */
  active(environment: Environment): Promise<SigningKey>;
  /** Any key of the environment by kid, active or retired. */
  byKid(environment: Environment, kid: string): Promise<SigningKey | undefined>;
}

export interface PostgresSigningKeyStoreOptions {
  /** The platform's keyring (LATTICE_SECRET_KEYS): seals new keys, opens stored ones. */
  keyring: SecretKeyring;
}

interface Row {
  kid: string;
  environment: Environment;
  secret: string | null;
  secret_sealed: string | null;
}

const TABLE = 'realtime_signing_keys';
const COLUMNS = ['kid', 'environment', 'secret', 'secret_sealed'];

export function createPostgresSigningKeyStore(
  db: DbExecutor,
  opts: PostgresSigningKeyStoreOptions,
): SigningKeyStore {
  const { keyring } = opts;
  const opened = new Map<string, { environment: Environment; key: SigningKey }>();

  function keyOf(row: Row): SigningKey {
    const hit = opened.get(row.kid);
    if (hit) return hit.key;
    let secret: string;
    try {
      if (row.secret_sealed !== null)
        secret = openSecret(keyring, SIGNING_KEY_SEAL_PURPOSE, row.secret_sealed);
      else if (row.secret !== null) secret = row.secret;
      else throw new SecretKeyError('no key stored'); // the table's check constraint forbids it
    } catch (err) {
      if (!(err instanceof SecretKeyError)) throw err;
      // The kid of the signing key is no secret; the message names no key bytes.
      throw new SecretKeyError(`realtime signing key ${row.kid}: ${err.message}`);
    }
    const key = { kid: row.kid, secret };
    opened.set(row.kid, { environment: row.environment, key });
    return key;
  }

  const activeRow = async (environment: Environment) =>
    (await db(TABLE).where({ environment }).whereNull('retired_at').first(COLUMNS)) as Row | undefined;

  return {
    async active(environment) {
      const existing = await activeRow(environment);
      if (existing) return keyOf(existing);
      // Two roles starting at once both try; the partial unique index lets exactly one win.
      await db(TABLE)
        .insert({
          kid: `${environment}-${randomUUID()}`,
          environment,
          secret_sealed: sealSecret(keyring, SIGNING_KEY_SEAL_PURPOSE, randomBytes(32).toString('base64url')),
        })
        .onConflict(db.raw('(environment) where retired_at is null'))
        .ignore();
      const row = await activeRow(environment);
      if (!row) throw new Error(`no active realtime signing key for ${environment} after creating one`);
      return keyOf(row);
    },
    async byKid(environment, kid) {
      const hit = opened.get(kid);
      if (hit) return hit.environment === environment ? hit.key : undefined;
      const row = (await db(TABLE).where({ environment, kid }).first(COLUMNS)) as Row | undefined;
      return row ? keyOf(row) : undefined;
    },
  };
}
