// What the realtime benchmarks set up the same way: a product with a `bench` namespace (an hour of
// history, no presence, no client events) and a realtime public key for it, and the publish
// quota raised out of the way (the benchmarks measure the path, not the limit).
import { createPostgresPublicKeyRepository, mintKey } from '@lattice/keys';
import { createPostgresNamespaceRepository, type PublishQuota } from '@lattice/realtime';
import { bootstrapProduct, type Db } from '@lattice/store';

export const LIMIT_NEVER_REACHED = 1_000_000_000;

/** The publish quota of a benchmark's platform: never reached. */
export const QUOTA_OUT_OF_THE_WAY: PublishQuota = {
  sustainedPerSecond: LIMIT_NEVER_REACHED,
  windowMs: 10_000,
  burstPerWindow: 0,
  hardLimitPerWindow: LIMIT_NEVER_REACHED,
};

/** A product with the `bench` namespace and a production realtime public key (`lpk_`). */
export async function benchProduct(db: Db, name: string): Promise<{ productId: string; publicKey: string }> {
  const { product_id: productId } = await bootstrapProduct(db, { name });
  await createPostgresNamespaceRepository(db).put(productId, 'bench', {
    presence: false,
    clientEvents: false,
    historyWindowSeconds: 3600,
    archiveDays: 0,
  });
  const minted = mintKey('lpk_');
  await createPostgresPublicKeyRepository(db).create({
    productId,
    environment: 'production',
    name: 'bench',
    prefix: 'lpk_',
    hash: minted.hash,
    visible: minted.visible,
    scope: { kind: 'toolkit', toolkit: 'realtime' },
    createdBy: null,
  });
  return { productId, publicKey: minted.secret };
}
