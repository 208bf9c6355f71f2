// `lattice bootstrap --product NAME [--verified-domain DOMAIN]`: prints exactly one JSON object,
// {"product_id", "owner_token"}. The token is shown here once and stored only as a hash. A
// verified domain gets its DKIM key here too, sealed with the platform's keyring (the same
// LATTICE_SECRET_KEYS, or the same data folder, as the platform that will sign with it).
// `lattice bootstrap --product-id ID --role ROLE [--name NAME]` adds a member to an existing
// product and prints {"product_id", "member_token"} (docs/organization.md).
import { SecretKeyError, type SecretKeyring } from '@lattice/core';
import { createPostgresDomainStore } from '@lattice/mail';
import { addMember, bootstrapProduct, createDb, migrateLatest } from '@lattice/store';
import type { CommandContext } from '../context.ts';
import { secretKeyringOf } from '../secret-keys-file.ts';

export async function runBootstrap(
  { config, logger }: CommandContext,
  args: {
    product: string | undefined;
    verifiedDomain: string | undefined;
    productId?: string | undefined;
    role?: string | undefined;
    name?: string | undefined;
  },
): Promise<number> {
  if (args.productId !== undefined || args.role !== undefined) {
    return runAddMember({ config, logger }, args);
  }
  const name = args.product?.trim();
  if (!name) {
    console.error('lattice bootstrap: --product NAME is required');
    return 2;
  }
  // Before anything is written: a keyring that cannot be read leaves nothing half made.
  let keyring: SecretKeyring | undefined;
  try {
    if (args.verifiedDomain) keyring = secretKeyringOf(config);
  } catch (err) {
    if (!(err instanceof SecretKeyError)) throw err;
    console.error(`lattice bootstrap: ${err.message}`);
    return 2;
  }
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  try {
    await migrateLatest(db, logger);
    let result: Awaited<ReturnType<typeof bootstrapProduct>>;
    try {
      result = await bootstrapProduct(db, {
        name,
        ...(args.verifiedDomain ? { verifiedDomain: args.verifiedDomain.toLowerCase() } : {}),
      });
    } catch (err) {
      // The store validates names and domains (one rule for every caller).
      if (!(err instanceof RangeError)) throw err;
      console.error(`lattice bootstrap: ${err.message}`);
      return 2;
    }
    // Were this interrupted, the domain would get its key on first read instead.
    if (keyring) await createPostgresDomainStore(db, { keyring }).ensureKeys(result.product_id);
    process.stdout.write(
      `${JSON.stringify({ product_id: result.product_id, owner_token: result.owner_token })}\n`,
    );
    return 0;
  } finally {
    await db.destroy();
  }
}

async function runAddMember(
  { config, logger }: CommandContext,
  args: {
    product: string | undefined;
    productId?: string | undefined;
    role?: string | undefined;
    name?: string | undefined;
  },
): Promise<number> {
  if (args.product !== undefined || !args.productId || !args.role) {
    console.error('lattice bootstrap: a member is added with --product-id ID and --role owner|admin|member');
    return 2;
  }
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  try {
    await migrateLatest(db, logger);
    try {
      const added = await addMember(db, {
        productId: args.productId,
        role: args.role,
        ...(args.name === undefined ? {} : { name: args.name }),
      });
      process.stdout.write(
        `${JSON.stringify({ product_id: added.product_id, member_token: added.member_token })}\n`,
      );
      return 0;
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      console.error(`lattice bootstrap: ${err.message}`);
      return 2;
    }
  } finally {
    await db.destroy();
  }
}
