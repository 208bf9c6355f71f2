// Fan-out: after a batch is durable, the channel actor publishes what subscribers must see on
// the channel's pub/sub channel, and the outcome of each presence command on the result channel
// of the connection that sent it. Delivery is at-least-once while the actor lives (retried in
// place); a crash between the commit and the publish loses that publish, and gateways detect
// the gap by offset and recover from history (docs/realtime.md).
//
// The messages and their JSON texts belong to the realtime protocol (@lattice/realtime-protocol),
// which gateways read them with; they are re-exported here. Their pub/sub channel names are
// Redis names (@lattice/redis keys.ts).
import type { FanOutMessage, PresenceResult } from '@lattice/realtime-protocol';
import type { ChannelId } from '../channel/channel-id.ts';

export type {
  FanOutMessage,
  PresenceAction,
  PresenceErrorCode,
  PresenceResult,
} from '@lattice/realtime-protocol';
export { encodeFanOutMessage, encodePresenceResult } from '@lattice/realtime-protocol';

export interface FanOut {
  /** Publishes `messages` in order on the channel, then each result to its connection. */
  deliver(
    id: ChannelId,
    messages: readonly FanOutMessage[],
    results: readonly PresenceResult[],
  ): Promise<void>;
}
