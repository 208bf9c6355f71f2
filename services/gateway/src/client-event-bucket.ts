// The per-connection budget of client events (spec "Client events", decisions.md): a token
// bucket that starts full at 10 and refills continuously at 5 per second. Only a publish that
// passed every other check takes a token.
import { CLIENT_EVENT_BURST, CLIENT_EVENT_REFILL_PER_SECOND } from '@lattice/realtime-protocol';

export interface ClientEventBucket {
  /** Takes one token if there is one. */
  take(nowMs: number): boolean;
  /** Gives back a token taken for a publish that then failed. */
  refund(): void;
}

export function createClientEventBucket(
  nowMs: number,
  burst = CLIENT_EVENT_BURST,
  perSecond = CLIENT_EVENT_REFILL_PER_SECOND,
): ClientEventBucket {
  let tokens = burst;
  let atMs = nowMs;
  return {
    take(now) {
      tokens = Math.min(burst, tokens + (Math.max(0, now - atMs) * perSecond) / 1000);
      atMs = Math.max(atMs, now);
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    refund() {
      tokens = Math.min(burst, tokens + 1);
    },
  };
}
