// A kept test or benchmark database holds values sealed by keyrings of earlier runs. Every role
// refuses to start on a database holding values its keyring cannot open (docs/operations.md
// "Secrets at start"), so a run drops what its own keyring does not open before it starts any:
// realtime signing keys (the next token makes a new one), a domain's DKIM key (it gets a new one
// on its next use) and webhook endpoints (whole: their secret is not nullable).
import { type Logger, openSecret, type SecretKeyring } from '@lattice/core';
import { SIGNING_KEY_SEAL_PURPOSE } from '@lattice/realtime';
import type { Db } from '@lattice/store';

/** sealSecret's shape; a value of another shape is malformed and blocks no start. */
const SEALED = '^[a-z0-9]{1,16}[.][^.]*[.][^.]*[.][^.]*$';

export async function dropForeignSeals(db: Db, keyring: SecretKeyring, logger: Logger): Promise<void> {
  const exists = (await db.raw("select to_regclass('realtime_signing_keys') as t")).rows[0].t;
  if (exists === null) return;
  const rows = (await db('realtime_signing_keys')
    .whereNotNull('secret_sealed')
    .select('kid', 'secret_sealed')) as Array<{ kid: string; secret_sealed: string }>;
  const foreign = rows.filter((r) => {
    try {
      openSecret(keyring, SIGNING_KEY_SEAL_PURPOSE, r.secret_sealed);
      return false;
    } catch {
      return true;
    }
  });
  if (foreign.length > 0)
    await db('realtime_signing_keys')
      .whereIn(
        'kid',
        foreign.map((r) => r.kid),
      )
      .delete();
  // One kid per run keyring: anything sealed under another kid is foreign.
  const mine = `${keyring.currentKid}.%`;
  const domains = await db('mail_domains')
    .whereRaw(`dkim_private_key_sealed ~ '${SEALED}'`)
    .whereNot('dkim_private_key_sealed', 'like', mine)
    .update({ dkim_private_key_sealed: null, dkim_selector: null, dkim_public_key: null });
  const endpoints = await db('mail_webhook_endpoints')
    .whereRaw(`secret_sealed ~ '${SEALED}'`)
    .whereNot('secret_sealed', 'like', mine)
    .delete();
  if (foreign.length + domains + endpoints > 0)
    logger.info(
      { signingKeys: foreign.map((r) => r.kid), domains, endpoints },
      'dropped values sealed with another keyring',
    );
}
