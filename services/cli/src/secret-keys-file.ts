// LATTICE_SECRET_KEYS for local use (docs/operations.md "Secrets at start"): when the deployment
// sets none, the platform's master secret is generated once and kept in the user's data folder,
// one file per database (`<keyringDir>/<database>.keys`, mode 0600). Every checkout of the same
// user that uses the same database finds it (a second clone, or one after `git clean -fdx`, no
// longer generates a keyring of its own that opens nothing the first one sealed). A generated
// key gets a random kid (`l` + 8 hex), so a mismatch names the kid that is missing instead of
// two keys both called `local` failing as "does not open". A deployment of several hosts sets
// LATTICE_SECRET_KEYS on all of them instead.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  generateSecretKeyEntry,
  type LatticeConfig,
  parseSecretKeys,
  SecretKeyError,
  type SecretKeyring,
  sha256Hex,
} from '@lattice/core';

type KeyConfig = Pick<LatticeConfig, 'secretKeys' | 'dataDir' | 'keyringDir' | 'databaseUrl'>;

export function secretKeyringOf(config: KeyConfig, opts: { create?: boolean } = {}): SecretKeyring {
  return parseSecretKeys(secretKeysOf(config, opts));
}

/** Where the generated keyring of this configuration's database is kept. */
export function localKeyringFile(config: Pick<LatticeConfig, 'keyringDir' | 'databaseUrl'>): string {
  return join(config.keyringDir, `${databaseKey(config.databaseUrl)}.keys`);
}

/**
 * The LATTICE_SECRET_KEYS value secretKeyringOf parses: for a composition root that starts other
 * processes (tests, the soak) which must seal and sign with its keyring. Realtime signing keys
 * are one per environment for the whole database, so every process using a database must hold
 * the kid they were sealed with.
 */
export function secretKeysOf(config: KeyConfig, opts: { create?: boolean } = {}): string {
  if (config.secretKeys !== '') return config.secretKeys;
  const file = localKeyringFile(config);
  const kept = readIfPresent(file);
  if (kept !== undefined) return kept;
  // The keyring an earlier version kept in the checkout's data folder is adopted, so what it
  // sealed keeps opening from every checkout.
  const legacy = readIfPresent(join(config.dataDir, 'secret-keys'));
  // A command that only uses the keys (`lattice secrets reseal`) must not invent a new one.
  if (legacy === undefined && opts.create === false)
    throw new SecretKeyError(`LATTICE_SECRET_KEYS is not set and ${file} does not exist`);
  mkdirSync(config.keyringDir, { recursive: true, mode: 0o700 });
  // Written whole to a file of this process's own, then linked into place: of two processes
  // starting at once exactly one link succeeds, and neither ever reads a half-written file.
  const mine = `${file}.${process.pid}.tmp`;
  writeFileSync(mine, `${legacy ?? generateSecretKeyEntry(`l${randomBytes(4).toString('hex')}`)}\n`, {
    mode: 0o600,
  });
  try {
    linkSync(mine, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(mine);
  }
  return readFileSync(file, 'utf8').trim();
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return undefined;
  }
}

/** The database a URL names (server and name, not the user or password), as a file name. */
function databaseKey(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const name = url.pathname.replace(/^\//, '') || 'postgres';
  const readable = `${url.hostname}-${url.port || '5432'}-${name}`.replace(/[^a-zA-Z0-9_.-]/g, '_');
  return `${readable}-${sha256Hex(`${url.hostname}:${url.port || '5432'}/${name}`).slice(0, 8)}`;
}
