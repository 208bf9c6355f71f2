// Fan-out: after a batch is durable, the channel actor publishes what subscribers must see on
// the channel's pub/sub channel, and the outcome of each presence command on the result channel
// of the connection that sent it. Delivery is at-least-once while the actor lives (retried in
// place); a crash between the commit and the publish loses that publish, and gateways detect
// the gap by offset and recover from history (docs/realtime.md).

import type { ChannelEntry } from '../channel/channel-entry.ts';
import type { ChannelId } from '../channel/channel-id.ts';

export type PresenceAction = 'join' | 'update' | 'leave';

export type FanOutMessage =
  | { type: 'publication'; channel: string; entry: ChannelEntry }
  | {
      type: 'presence';
      channel: string;
      action: PresenceAction;
      identity: string;
      /** The member's connections after the change (0 on leave). */
      connections: number;
      infoJson: string | null;
      /** Why the member left (`expired`, or what the gateway said). */
      reason?: string;
    };

/** `full` → 429; `invalid` and `forbidden` → the WebSocket error codes of the same names. */
export type PresenceErrorCode = 'full' | 'invalid' | 'forbidden';

export interface PresenceResult {
  commandId: string;
  channel: string;
  connectionId: string;
  action: 'enter' | 'update' | 'leave';
  error?: { code: PresenceErrorCode; message: string };
}

export interface FanOut {
  /** Publishes `messages` in order on the channel, then each result to its connection. */
  deliver(
    id: ChannelId,
    messages: readonly FanOutMessage[],
    results: readonly PresenceResult[],
  ): Promise<void>;
}

/**
 * The JSON text subscribers receive. A publication is the history entry plus `type` and
 * `channel`; inline data is spliced in as the publisher's JSON text, never re-serialized.
 */
export function encodeFanOutMessage(m: FanOutMessage): string {
  if (m.type === 'presence') {
    const head = JSON.stringify({
      type: 'presence',
      channel: m.channel,
      action: m.action,
      identity: m.identity,
      connections: m.connections,
      ...(m.reason !== undefined ? { reason: m.reason } : {}),
    });
    return `${head.slice(0, -1)},"info":${m.infoJson ?? 'null'}}`;
  }
  const e = m.entry;
  const head = JSON.stringify({
    type: 'publication',
    channel: m.channel,
    id: e.id,
    offset: e.offset,
    epoch: e.epoch,
    ...(e.name !== null ? { name: e.name } : {}),
    published_at: new Date(e.publishedAtMs).toISOString(),
    ...(e.payload.kind === 'ref' ? { ref: e.payload.ref } : {}),
  });
  return e.payload.kind === 'data' ? `${head.slice(0, -1)},"data":${e.payload.json}}` : head;
}

export function encodePresenceResult(r: PresenceResult): string {
  return JSON.stringify({
    type: 'presence_result',
    command_id: r.commandId,
    channel: r.channel,
    connection_id: r.connectionId,
    action: r.action,
    ok: r.error === undefined,
    ...(r.error ? { error: r.error } : {}),
  });
}
