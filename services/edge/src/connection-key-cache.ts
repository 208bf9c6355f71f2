// A keep-alive connection presents the same key on request after request. The key found for it
// is kept with the connection, with the snapshot it was found in, so its next requests skip the
// SHA-256, the digest lookup and the digest comparison (about a fifth of the edge's own work per
// request, docs/benchmarks.md):
// - a hit needs the very snapshot object the key was found in; every load makes a new one, so a
//   key changed, revoked or re-scoped since is found again in the new snapshot, never served from
//   the cache;
// - the presented value is compared in constant time with the one that found the key, so even a
//   connection shared by several clients (a proxy's) tells one nothing about another's key;
// - only what the connection itself presented is kept, and only while it is open (a WeakMap
//   keyed by the socket); a value that found no key is not kept, so guessing costs a hash each
//   time.

import { sameStringConstantTime } from '@lattice/core';
import { findPresentedKey, type KeyFinder, type KeySnapshot, type SnapshotKey } from '@lattice/keys';

interface Found {
  snapshot: KeySnapshot;
  presented: string;
  key: SnapshotKey;
}

export interface ConnectionKeyCache {
  /** findPresentedKey for a request arriving on `connection` (a KeyFinder; none: no caching). */
  find: KeyFinder;
}

export function createConnectionKeyCache(): ConnectionKeyCache {
  const byConnection = new WeakMap<object, Found>();
  return {
    find(snapshot, presented, connection) {
      if (connection === undefined) return findPresentedKey(snapshot, presented);
      const found = byConnection.get(connection);
      if (
        found !== undefined &&
        found.snapshot === snapshot &&
        sameStringConstantTime(found.presented, presented)
      ) {
        return found.key;
      }
      const key = findPresentedKey(snapshot, presented);
      if (key !== undefined) byConnection.set(connection, { snapshot, presented, key });
      return key;
    },
  };
}
