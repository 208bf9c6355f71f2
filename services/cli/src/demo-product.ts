// The demo product `lattice start` creates on first run. Its owner token is kept in the local
// data directory (mode 0600) so every start can print it again; that is a local-development
// convenience only: the database still holds just the token's hash.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type SecretKeyring, sha256Hex } from '@lattice/core';
import { createPostgresDomainStore } from '@lattice/mail';
import { createPostgresNamespaceRepository } from '@lattice/realtime';
import { bootstrapProduct, createPostgresMemberTokenRepository, type Db } from '@lattice/store';

export interface DemoProduct {
  product_id: string;
  owner_token: string;
  verified_domain: string;
}

export const DEMO_DOMAIN = 'demo.lattice.test';

export async function ensureDemoProduct(
  db: Db,
  dataDir: string,
  keyring: SecretKeyring,
): Promise<{ demo: DemoProduct; created: boolean }> {
  const file = join(dataDir, 'demo-product.json');
  const saved = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as DemoProduct,
    () => null,
  );
  if (saved) {
    const token = await createPostgresMemberTokenRepository(db).findActiveByHash(
      sha256Hex(saved.owner_token),
    );
    if (token) {
      await ensureDemoNamespace(db, saved.product_id);
      // A demo product made before domains had keys gets its key now.
      await createPostgresDomainStore(db, { keyring }).ensureKeys(saved.product_id);
      return { demo: saved, created: false };
    }
  }
  const result = await bootstrapProduct(db, { name: 'Demo', verifiedDomain: DEMO_DOMAIN });
  // Its DKIM key, sealed with the keyring the platform's roles sign with.
  await createPostgresDomainStore(db, { keyring }).ensureKeys(result.product_id);
  const demo = {
    product_id: result.product_id,
    owner_token: result.owner_token,
    verified_domain: DEMO_DOMAIN,
  };
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600); // mode applies only when writeFile creates the file
  await ensureDemoNamespace(db, demo.product_id);
  return { demo, created: true };
}

/** The namespace of the demo chat (`demo:lobby`): presence, client events, a day of history. */
async function ensureDemoNamespace(db: Db, productId: string): Promise<void> {
  const namespaces = createPostgresNamespaceRepository(db);
  if (await namespaces.get(productId, 'demo')) return;
  await namespaces.put(productId, 'demo', {
    presence: true,
    clientEvents: true,
    historyWindowSeconds: 86_400,
    archiveDays: 0,
  });
}
