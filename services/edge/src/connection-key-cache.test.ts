import { sha256Hex } from '@lattice/core';
import { createKeySnapshot, type KeySnapshot, type SnapshotKey } from '@lattice/keys';
import { expect } from 'chai';
import { createConnectionKeyCache } from './connection-key-cache.ts';

const KEY = 'lpk_0123456789abcdef0123456789abcdef';
const OTHER_KEY = 'lpk_fedcba9876543210fedcba9876543210';

function key(secret: string, overrides: Partial<SnapshotKey> = {}): SnapshotKey {
  return {
    id: `id-${secret}`,
    productId: 'p1',
    hash: sha256Hex(secret),
    scope: { kind: 'product' },
    revokedAtMs: null,
    ...overrides,
  };
}

/** A snapshot that counts its digest lookups: a cache hit makes none. */
function counted(keys: SnapshotKey[]): { snapshot: KeySnapshot; lookups(): number } {
  const inner = createKeySnapshot(keys, 0);
  let lookups = 0;
  const snapshot: KeySnapshot = {
    loadedAtMs: inner.loadedAtMs,
    size: inner.size,
    get(hash) {
      lookups += 1;
      return inner.get(hash);
    },
  };
  return { snapshot, lookups: () => lookups };
}

describe('connection key cache', () => {
  it('finds a key once per connection and snapshot, then answers from the cache', () => {
    const cache = createConnectionKeyCache();
    const { snapshot, lookups } = counted([key(KEY)]);
    const connection = {};
    expect(cache.find(snapshot, KEY, connection)?.id).to.equal(`id-${KEY}`);
    expect(cache.find(snapshot, KEY, connection)?.id).to.equal(`id-${KEY}`);
    expect(cache.find(snapshot, KEY, connection)?.id).to.equal(`id-${KEY}`);
    expect(lookups()).to.equal(1);
    // Another connection presenting the same key finds it itself.
    expect(cache.find(snapshot, KEY, {})?.id).to.equal(`id-${KEY}`);
    expect(lookups()).to.equal(2);
  });

  it('finds the key again in a new snapshot: a revocation is never hidden by the cache', () => {
    const cache = createConnectionKeyCache();
    const connection = {};
    const before = counted([key(KEY)]);
    expect(cache.find(before.snapshot, KEY, connection)?.revokedAtMs).to.equal(null);
    const after = counted([key(KEY, { revokedAtMs: 5 })]);
    expect(cache.find(after.snapshot, KEY, connection)?.revokedAtMs).to.equal(5);
    expect(after.lookups()).to.equal(1);
    const gone = counted([]);
    expect(cache.find(gone.snapshot, KEY, connection)).to.equal(undefined);
  });

  it('looks up a different value on the same connection, and keeps values that found nothing out', () => {
    const cache = createConnectionKeyCache();
    const { snapshot, lookups } = counted([key(KEY), key(OTHER_KEY)]);
    const connection = {};
    expect(cache.find(snapshot, KEY, connection)?.id).to.equal(`id-${KEY}`);
    expect(cache.find(snapshot, OTHER_KEY, connection)?.id).to.equal(`id-${OTHER_KEY}`);
    expect(cache.find(snapshot, `${KEY.slice(0, -1)}0`, connection)).to.equal(undefined);
    expect(cache.find(snapshot, `${KEY.slice(0, -1)}0`, connection)).to.equal(undefined);
    expect(lookups()).to.equal(4);
    // The last key found is still the cached one.
    expect(cache.find(snapshot, OTHER_KEY, connection)?.id).to.equal(`id-${OTHER_KEY}`);
    expect(lookups()).to.equal(4);
  });

  it('caches nothing for a request without a connection', () => {
    const cache = createConnectionKeyCache();
    const { snapshot, lookups } = counted([key(KEY)]);
    expect(cache.find(snapshot, KEY, undefined)?.id).to.equal(`id-${KEY}`);
    expect(cache.find(snapshot, KEY, undefined)?.id).to.equal(`id-${KEY}`);
    expect(lookups()).to.equal(2);
  });
});
