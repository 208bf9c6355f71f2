// LATTICE_SECRET_KEYS for local use: when the deployment sets none, the platform's master secret
// is generated once and kept in `<dataDir>/secret-keys` (mode 0600), so every role started from
// the same folder (`lattice start`, tests, benchmarks) seals and signs with the same key. A
// deployment of several hosts sets LATTICE_SECRET_KEYS on all of them instead.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  generateSecretKeyEntry,
  type LatticeConfig,
  parseSecretKeys,
  SecretKeyError,
  type SecretKeyring,
} from '@lattice/core';

export function secretKeyringOf(
  config: Pick<LatticeConfig, 'secretKeys' | 'dataDir'>,
  opts: { create?: boolean } = {},
): SecretKeyring {
  return parseSecretKeys(secretKeysOf(config, opts));
}

/**
 * The LATTICE_SECRET_KEYS value secretKeyringOf parses: for a composition root that starts other
 * processes (tests, the soak) which must seal and sign with its keyring. Realtime signing keys
 * are one per environment for the whole database, so every process using a database must hold
 * the kid they were sealed with.
 */
export function secretKeysOf(
  config: Pick<LatticeConfig, 'secretKeys' | 'dataDir'>,
  opts: { create?: boolean } = {},
): string {
  if (config.secretKeys !== '') return config.secretKeys;
  const file = join(config.dataDir, 'secret-keys');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // A command that only uses the keys (`lattice secrets reseal`) must not invent a new one.
  if (opts.create === false)
    throw new SecretKeyError(`LATTICE_SECRET_KEYS is not set and ${file} does not exist`);
  mkdirSync(config.dataDir, { recursive: true });
  // Written whole to a file of this process's own, then linked into place: of two processes
  // starting at once exactly one link succeeds, and neither ever reads a half-written file.
  const mine = `${file}.${process.pid}.tmp`;
  writeFileSync(mine, `${generateSecretKeyEntry('local')}\n`, { mode: 0o600 });
  try {
    linkSync(mine, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(mine);
  }
  return readFileSync(file, 'utf8').trim();
}
