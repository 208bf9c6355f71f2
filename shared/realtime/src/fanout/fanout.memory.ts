// FanOut that records deliveries; for unit tests only. `failNext` makes deliveries throw.
import type { ChannelId } from '../channel/channel-id.ts';
import type { FanOut, FanOutMessage, PresenceResult } from './fanout.ts';

export interface MemoryFanOut extends FanOut {
  readonly deliveries: Array<{ id: ChannelId; messages: FanOutMessage[]; results: PresenceResult[] }>;
  failNext(times: number): void;
}

export function createMemoryFanOut(): MemoryFanOut {
  let failures = 0;
  const deliveries: MemoryFanOut['deliveries'] = [];
  return {
    deliveries,
    failNext(times) {
      failures = times;
    },
    async deliver(id, messages, results) {
      if (failures > 0) {
        failures--;
        throw new Error('fan-out unavailable');
      }
      deliveries.push({ id, messages: [...messages], results: [...results] });
    },
  };
}
