// `lattice bootstrap --product NAME [--verified-domain DOMAIN]`: prints exactly one JSON object,
// {"product_id", "owner_token"}. The token is shown here once and stored only as a hash.
import { bootstrapProduct, createDb, migrateLatest } from '@lattice/store';
import type { CommandContext } from '../context.ts';

export async function runBootstrap(
  { config, logger }: CommandContext,
  args: { product: string | undefined; verifiedDomain: string | undefined },
): Promise<number> {
  const name = args.product?.trim();
  if (!name) {
    console.error('lattice bootstrap: --product NAME is required');
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
    process.stdout.write(
      `${JSON.stringify({ product_id: result.product_id, owner_token: result.owner_token })}\n`,
    );
    return 0;
  } finally {
    await db.destroy();
  }
}
