// Which products may store payloads over the inline cap. The publisher asks the registry; null
// means not provisioned and the HTTP layer answers 503 for an oversized publish.
import type { PayloadStore, PayloadStoreRegistry } from './payload-store.ts';

export interface PayloadStoreRegistryOptions {
  /** The deployment's store; null when the deployment has none. */
  store: PayloadStore | null;
  /** Products provisioned for it: every product, or the listed ones. Default every product. */
  products?: 'all' | readonly string[];
}

export function createPayloadStoreRegistry(opts: PayloadStoreRegistryOptions): PayloadStoreRegistry {
  const products = opts.products ?? 'all';
  const listed = products === 'all' ? null : new Set(products);
  return {
    forProduct(productId) {
      if (opts.store === null) return null;
      if (listed !== null && !listed.has(productId)) return null;
      return opts.store;
    },
  };
}
