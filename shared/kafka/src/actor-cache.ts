// The in-memory actors of one host, least recently used first. Evicting is always safe: an
// evicted actor is rehydrated from durable state on its key's next record. Entries belong to
// one consumer-group generation; a load that finishes after a rebalance is not cached.
import type { Actor } from './actor.ts';

export class ActorCache<C> {
  private readonly maxActors: number;
  private entries = new Map<string, Actor<C>>();
  private generation = 0;

  constructor(maxActors: number) {
    this.maxActors = Math.max(1, maxActors);
  }

  get size(): number {
    return this.entries.size;
  }

  currentGeneration(): number {
    return this.generation;
  }

  /** A rebalance: everything cached may be stale now. */
  newGeneration(): number {
    this.entries = new Map();
    return ++this.generation;
  }

  get(partition: number, key: string): Actor<C> | undefined {
    const id = `${partition}\u0000${key}`;
    const actor = this.entries.get(id);
    if (actor) {
      this.entries.delete(id);
      this.entries.set(id, actor);
    }
    return actor;
  }

  set(partition: number, key: string, actor: Actor<C>, loadedInGeneration: number): void {
    if (loadedInGeneration !== this.generation) return;
    const id = `${partition}\u0000${key}`;
    this.entries.delete(id);
    this.entries.set(id, actor);
    while (this.entries.size > this.maxActors) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
