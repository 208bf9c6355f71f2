// `lattice bootstrap --product NAME [--verified-domain DOMAIN]`: prints exactly one JSON object,
// {"product_id", "owner_token"}. The token is shown here once and stored only as a hash.
import { bootstrapProduct, createDb, migrateLatest } from '@lattice/store';
import type { CommandContext } from '../context.ts';

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

export async function runBootstrap(
  { config, logger }: CommandContext,
  args: { product: string | undefined; verifiedDomain: string | undefined },
): Promise<number> {
  const name = args.product?.trim();
  if (!name || name.length > 128) {
    console.error('lattice bootstrap: --product NAME is required (1 to 128 characters)');
    return 2;
  }
  if (args.verifiedDomain !== undefined && !DOMAIN_RE.test(args.verifiedDomain)) {
    console.error(`lattice bootstrap: --verified-domain "${args.verifiedDomain}" is not a domain name`);
    return 2;
  }
  const db = createDb({ databaseUrl: config.databaseUrl, logger });
  try {
    await migrateLatest(db, logger);
    const result = await bootstrapProduct(db, {
      name,
      ...(args.verifiedDomain ? { verifiedDomain: args.verifiedDomain.toLowerCase() } : {}),
    });
    process.stdout.write(
      `${JSON.stringify({ product_id: result.product_id, owner_token: result.owner_token })}\n`,
    );
    return 0;
  } finally {
    await db.destroy();
  }
}
