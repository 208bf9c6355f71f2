// The benchmark's key fixture: N public keys of the production environment, spread over
// products of 100 keys each, bulk-inserted into the bench database. The edge loads them the way
// it loads any snapshot (the public key repository's snapshotKeys); only the insert is direct,
// because creating 100 000 keys one repository call at a time would take minutes.
import { newId } from '@lattice/core';
import { mintKey } from '@lattice/keys';
import type { Db } from '@lattice/store';

export const BENCH_PRODUCT_PREFIX = 'bench-edge-';
const KEYS_PER_PRODUCT = 100;

export interface Seeded {
  /** The product whose key the load generator presents. */
  productId: string;
  secret: string;
  keys: number;
}

/** Removes what an earlier run left (the products cascade to their keys). */
export async function clearSeed(db: Db): Promise<void> {
  await db('products').where('name', 'like', `${BENCH_PRODUCT_PREFIX}%`).delete();
}

export async function seedKeys(db: Db, count: number): Promise<Seeded> {
  await clearSeed(db);
  const productIds = Array.from({ length: Math.ceil(count / KEYS_PER_PRODUCT) }, () => newId());
  await db.batchInsert(
    'products',
    productIds.map((id, i) => ({ id, name: `${BENCH_PRODUCT_PREFIX}${i}` })),
    1000,
  );
  // The presented key sits in the middle of the product list; any key costs the same lookup.
  const presentedIndex = Math.floor(count / 2);
  let presented: { productId: string; secret: string } | undefined;
  // Keys made a day ago, as in a steady state: the edge's incremental refreshes then fetch what
  // changed since the last one (nothing here), not every key, as they would for rows written in
  // the last minute (their look-back margin), which would load 100 000 keys on every refresh
  // during the first rounds.
  const dayAgo = new Date(Date.now() - 86_400_000);
  const rows = [];
  for (let i = 0; i < count; i++) {
    const productId = productIds[Math.floor(i / KEYS_PER_PRODUCT)]!;
    const minted = mintKey('lpk_');
    if (i === presentedIndex) presented = { productId, secret: minted.secret };
    rows.push({
      id: newId(),
      product_id: productId,
      environment: 'production',
      name: `bench key ${i}`,
      prefix: 'lpk_',
      key_hash: minted.hash,
      visible: minted.visible,
      scope: JSON.stringify(i % 2 === 0 ? { kind: 'product' } : { kind: 'toolkit', toolkit: 'mail' }),
      status: 'active',
      created_at: dayAgo,
      updated_at: dayAgo,
    });
  }
  await db.batchInsert('public_keys', rows, 2000);
  return { ...presented!, keys: count };
}
