import { expect } from 'chai';
import type { Actor } from './actor.ts';
import { ActorCache } from './actor-cache.ts';

const actor = (): Actor<unknown> => ({ applied: () => null, handle: async () => {} });

describe('ActorCache', () => {
  it('evicts the least recently used actor beyond its bound', () => {
    const cache = new ActorCache<unknown>(2);
    const a = actor();
    cache.set(0, 'a', a, 0);
    cache.set(0, 'b', actor(), 0);
    expect(cache.get(0, 'a')).to.equal(a); // a is now the most recent
    cache.set(0, 'c', actor(), 0);
    expect(cache.size).to.equal(2);
    expect(cache.get(0, 'b')).to.equal(undefined);
    expect(cache.get(0, 'a')).to.equal(a);
  });

  it('keeps keys of different partitions apart', () => {
    const cache = new ActorCache<unknown>(10);
    const a = actor();
    cache.set(1, 'k', a, 0);
    expect(cache.get(2, 'k')).to.equal(undefined);
    expect(cache.get(1, 'k')).to.equal(a);
  });

  it('forgets everything on a new generation and ignores loads from an older one', () => {
    const cache = new ActorCache<unknown>(10);
    cache.set(0, 'k', actor(), 0);
    const gen = cache.newGeneration();
    expect(cache.get(0, 'k')).to.equal(undefined);
    cache.set(0, 'late', actor(), gen - 1);
    expect(cache.get(0, 'late')).to.equal(undefined);
    cache.set(0, 'fresh', actor(), gen);
    expect(cache.get(0, 'fresh')).to.not.equal(undefined);
  });
});
