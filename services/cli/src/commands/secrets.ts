// `lattice secrets generate [--kid KID]`: a fresh `kid:secret` entry for LATTICE_SECRET_KEYS.
// `lattice secrets reseal [--batch-size N]`: after a rotation (a new first entry), re-seal every
// value sealed under an older kid with the current one (and seal what an older version stored in
// plain text), so the older entry can be removed (docs/operations.md "Rotating the secret keys").
// Progress goes to standard error; the last line on standard output is
// `{"resealed": {TABLE: N, …}, "kid": CURRENT}`.
import { generateSecretKeyEntry, parseSecretKeys } from '@lattice/core';
import { createDb } from '@lattice/store';
import type { CommandContext } from '../context.ts';
import { SEALED_COLUMNS } from '../sealed-columns.ts';
import { secretKeyringOf } from '../secret-keys-file.ts';
import { ResealRefused, resealAll } from '../secrets-reseal.ts';

const USAGE = 'usage: lattice secrets generate [--kid KID] | lattice secrets reseal [--batch-size N]';

export interface SecretsOptions {
  kid?: string | undefined;
  batchSize?: string | undefined;
}

export async function runSecrets(
  ctx: CommandContext,
  action: string | undefined,
  opts: SecretsOptions,
): Promise<number> {
  if (action === 'generate' && opts.batchSize === undefined) {
    const entry = generateSecretKeyEntry(opts.kid);
    parseSecretKeys(entry); // A kid the keyring would refuse is refused here (SecretKeyError).
    console.log(entry);
    return 0;
  }
  if (action === 'reseal' && opts.kid === undefined) return runReseal(ctx, opts.batchSize);
  console.error(USAGE);
  return 2;
}

async function runReseal({ config, logger }: CommandContext, batch: string | undefined): Promise<number> {
  if (batch !== undefined && !/^[1-9]\d{0,4}$/.test(batch)) {
    console.error('lattice secrets reseal: --batch-size must be an integer from 1 to 99999');
    return 2;
  }
  const keyring = secretKeyringOf(config, { create: false });
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  try {
    const outcome = await resealAll({
      db,
      keyring,
      columns: SEALED_COLUMNS,
      ...(batch === undefined ? {} : { batchSize: Number(batch) }),
      progress: (line) => console.error(`lattice: ${line}`),
    });
    console.log(JSON.stringify({ resealed: outcome.resealed, kid: outcome.kid }));
    return 0;
  } catch (err) {
    if (!(err instanceof ResealRefused)) throw err;
    console.error(`lattice secrets reseal: ${err.message}`);
    return 1;
  } finally {
    await db.destroy();
  }
}
