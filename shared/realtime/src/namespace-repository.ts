import type { NamespacePolicy } from './token-request.ts';

export interface NamespaceRecord extends NamespacePolicy {
  productId: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface NamespaceRepository {
  /** Creates or replaces the namespace's policy; `created` tells which. */
  put(
    productId: string,
    name: string,
    policy: NamespacePolicy,
  ): Promise<{ namespace: NamespaceRecord; created: boolean }>;
  get(productId: string, name: string): Promise<NamespaceRecord | undefined>;
  /** Sorted by name; `after` is the last name of the previous page. */
  list(productId: string, page: { limit: number; after?: string }): Promise<NamespaceRecord[]>;
  delete(productId: string, name: string): Promise<boolean>;
  /** Policies of the named namespaces (unregistered ones are absent). */
  policies(productId: string, names: string[]): Promise<Map<string, NamespacePolicy>>;
}
