// What a channel actor remembers between commands. Immutable: the pure logic returns a new value
// when something changed and the same value when nothing did, so the adapter can tell.

export interface PresenceConnection {
  connectionId: string;
  identity: string;
  gatewayId: string;
  expiresAtMs: number;
  /** The identity's info (last enter or update of any of its connections wins). */
  infoJson: string | null;
}

export interface ChannelState {
  /** Chosen at random when the state is first created; re-chosen when history is reset. */
  readonly epoch: string;
  /** The last offset assigned; 0 before the first publish. */
  readonly topOffset: number;
  /** Presence roster by connection id. */
  readonly connections: ReadonlyMap<string, PresenceConnection>;
  /** Message ids of the latest publishes, oldest first: a repeated id is a duplicate send. */
  readonly recentMessageIds: readonly string[];
}

/** How many recent message ids a channel remembers to drop duplicate publishes. */
export const RECENT_MESSAGE_IDS_MAX = 128;

export function newChannelState(epoch: string): ChannelState {
  return { epoch, topOffset: 0, connections: new Map(), recentMessageIds: [] };
}

/** Connections whose entry differs between two states: what to upsert and what to delete. */
export function rosterChanges(
  before: ChannelState | null,
  after: ChannelState,
): { put: PresenceConnection[]; remove: string[] } {
  const old = before?.connections ?? new Map<string, PresenceConnection>();
  const put: PresenceConnection[] = [];
  const remove: string[] = [];
  for (const [id, c] of after.connections) if (old.get(id) !== c) put.push(c);
  for (const id of old.keys()) if (!after.connections.has(id)) remove.push(id);
  return { put, remove };
}
