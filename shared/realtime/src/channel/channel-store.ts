// Durable state of channel actors. A commit writes the state, the batch's history rows, the
// roster changes and the applied Kafka position in one transaction, and only if the stored
// position is still the one this actor loaded or last wrote: a second writer (a stale owner
// after a rebalance) can never interleave, and the position never moves backwards.
import type { AppliedPosition } from '@lattice/kafka';
import type { ChannelEntry } from './channel-entry.ts';
import type { ChannelId } from './channel-id.ts';
import type { ChannelState, PresenceConnection } from './channel-state.ts';

export interface StoredChannel {
  state: ChannelState;
  applied: AppliedPosition;
}

export interface ChannelCommit {
  id: ChannelId;
  /** The position the stored row must still hold; null when the row must not exist yet. */
  expected: AppliedPosition | null;
  /**
   * The state is new (first command, or the stored state was lost): whatever history and
   * roster rows the channel still has belong to a previous epoch and are removed.
   */
  created: boolean;
  state: ChannelState;
  applied: AppliedPosition;
  /** Entries to keep, oldest first (empty when the namespace retains nothing). */
  history: readonly ChannelEntry[];
  presencePut: readonly PresenceConnection[];
  presenceRemove: readonly string[];
}

/** The stored position was not the expected one: another writer got there first. */
export class ChannelFencedError extends Error {
  constructor(id: ChannelId) {
    super(`channel ${id.productId}:${id.environment}:${id.channel} was written by another owner`);
    this.name = 'ChannelFencedError';
  }
}

export interface ChannelStore {
  load(id: ChannelId): Promise<StoredChannel | null>;
  /** Throws ChannelFencedError when the expected position no longer holds; writes nothing then. */
  commit(commit: ChannelCommit): Promise<void>;
}
