// Namespace policies for hot paths (channel actors, history and presence reads): looked up in
// the repository at most once per `ttlMs` per namespace, concurrent lookups sharing one query.
// A policy change therefore takes effect within ttlMs (default 5 s) everywhere.
import { type Clock, systemClock } from '@lattice/core';
import type { NamespaceRepository } from '../namespace-repository.ts';
import type { NamespacePolicy } from '../token-request.ts';

export interface NamespacePolicyLookup {
  /** The namespace's policy, or null when the namespace is not registered for the product. */
  get(productId: string, namespace: string): Promise<NamespacePolicy | null>;
}

export interface NamespacePolicyCacheOptions {
  repository: Pick<NamespaceRepository, 'get'>;
  ttlMs?: number;
  clock?: Clock;
  maxEntries?: number;
}

export const POLICY_CACHE_TTL_MS = 5_000;

export function createNamespacePolicyCache(opts: NamespacePolicyCacheOptions): NamespacePolicyLookup {
  const ttlMs = opts.ttlMs ?? POLICY_CACHE_TTL_MS;
  const clock = opts.clock ?? systemClock;
  const maxEntries = opts.maxEntries ?? 10_000;
  const entries = new Map<string, { atMs: number; policy: Promise<NamespacePolicy | null> }>();

  function prune(nowMs: number): void {
    for (const [key, e] of entries) if (nowMs - e.atMs >= ttlMs) entries.delete(key);
    // Still full of fresh entries: drop the oldest (insertion order).
    for (const key of entries.keys()) {
      if (entries.size < maxEntries) break;
      entries.delete(key);
    }
  }

  return {
    get(productId, namespace) {
      const key = `${productId}\u0000${namespace}`;
      const nowMs = clock.nowMs();
      const hit = entries.get(key);
      if (hit && nowMs - hit.atMs < ttlMs) return hit.policy;
      if (entries.size >= maxEntries) prune(nowMs);
      const policy = opts.repository.get(productId, namespace).then((r) =>
        r
          ? {
              presence: r.presence,
              clientEvents: r.clientEvents,
              historyWindowSeconds: r.historyWindowSeconds,
              archiveDays: r.archiveDays,
            }
          : null,
      );
      entries.set(key, { atMs: nowMs, policy });
      // A failed lookup is not remembered: the next caller asks again.
      policy.catch(() => {
        if (entries.get(key)?.policy === policy) entries.delete(key);
      });
      return policy;
    },
  };
}
