// Token signing keys sealed with the platform keyring (LATTICE_SECRET_KEYS, purpose
// `realtime-signing-key`), like DKIM keys and webhook secrets: they sign every token, so they are
// kept encrypted, not hashed. A migration holds no keyring, so it cannot seal the rows already
// there: they keep their plaintext `secret`, which the store still reads when `secret_sealed` is
// null, until `lattice secrets reseal` seals them and clears it. New keys are written sealed only,
// so `secret` becomes nullable. Once every deployment has resealed, a later migration drops it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('realtime_signing_keys', (t) => {
    // AES-256-GCM sealed base64url key bytes (secret-keyring.ts): `kid.iv.ciphertext.tag`.
    t.text('secret_sealed').nullable();
    t.setNullable('secret');
  });
  await knex.raw(
    `alter table realtime_signing_keys add constraint realtime_signing_keys_secret_check
       check (secret is not null or secret_sealed is not null)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  // Sealed rows cannot be opened here (no keyring): refuse rather than lose the keys.
  const [row] = (await knex('realtime_signing_keys').whereNull('secret').count({ n: '*' })) as Array<{
    n: string | number;
  }>;
  const sealedOnly = Number(row?.n ?? 0);
  if (sealedOnly > 0)
    throw new Error(
      `${sealedOnly} realtime signing key(s) exist only sealed; the plaintext column cannot be restored`,
    );
  await knex.raw('alter table realtime_signing_keys drop constraint realtime_signing_keys_secret_check');
  await knex.schema.alterTable('realtime_signing_keys', (t) => {
    t.dropColumn('secret_sealed');
    t.dropNullable('secret');
  });
}
