// ChannelStore in memory, with the same fencing as the PostgreSQL one; for unit tests only.
import type { ChannelEntry } from './channel-entry.ts';
import { type ChannelId, channelCommandKey } from './channel-id.ts';
import type { PresenceConnection } from './channel-state.ts';
import { ChannelFencedError, type ChannelStore, type StoredChannel } from './channel-store.ts';

export interface MemoryChannelStore extends ChannelStore {
  history(id: ChannelId): ChannelEntry[];
  roster(id: ChannelId): PresenceConnection[];
  /** Forgets the channel's state row only (as if it was lost), keeping its history rows. */
  loseState(id: ChannelId): void;
}

export function createMemoryChannelStore(): MemoryChannelStore {
  const states = new Map<string, StoredChannel>();
  const history = new Map<string, ChannelEntry[]>();
  const rosters = new Map<string, Map<string, PresenceConnection>>();
  return {
    async load(id) {
      const stored = states.get(channelCommandKey(id));
      if (!stored) return null;
      const roster = rosters.get(channelCommandKey(id)) ?? new Map();
      return { state: { ...stored.state, connections: new Map(roster) }, applied: stored.applied };
    },
    async commit(c) {
      const key = channelCommandKey(c.id);
      const stored = states.get(key);
      const matches =
        c.expected === null
          ? stored === undefined
          : stored !== undefined &&
            stored.applied.partition === c.expected.partition &&
            stored.applied.offset === c.expected.offset;
      if (!matches) throw new ChannelFencedError(c.id);
      const rows = c.created ? [] : [...(history.get(key) ?? [])];
      for (const e of c.history) {
        if (rows.some((r) => r.offset === e.offset)) throw new Error(`duplicate history offset ${e.offset}`);
        rows.push(e);
      }
      const roster = c.created ? new Map<string, PresenceConnection>() : new Map(rosters.get(key) ?? []);
      for (const id of c.presenceRemove) roster.delete(id);
      for (const p of c.presencePut) roster.set(p.connectionId, p);
      states.set(key, { state: c.state, applied: c.applied });
      history.set(key, rows);
      rosters.set(key, roster);
    },
    history: (id) => [...(history.get(channelCommandKey(id)) ?? [])],
    roster: (id) => [...(rosters.get(channelCommandKey(id))?.values() ?? [])],
    loseState: (id) => {
      states.delete(channelCommandKey(id));
    },
  };
}
