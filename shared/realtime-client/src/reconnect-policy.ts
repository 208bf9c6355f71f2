// What the client does after a connection ends, per close code (interface-spec.md "WebSocket
// close codes", through the protocol's reconnectRuleOf): 4001 fetches a fresh token and reconnects
// at once, 4100 reconnects at once, 4200 and every other code back off. Every reconnect
// resubscribes with the channels' cursors, so 4200's "recover" needs nothing more here.
//
// "At once" holds only for a connection that had authenticated. One that ends before its auth
// reply (a token the gateway rejects, a draining gateway that closes new connections) backs off
// instead: otherwise a provider handing out bad tokens, or a gateway that keeps refusing, would
// be hammered in a tight loop.
import { type ReconnectRule, reconnectRuleOf } from '@lattice/realtime-protocol';
import { type Backoff, backoffDelayMs } from './backoff.ts';

/** The code reported when a connection ended without a close frame from the server (RFC 6455). */
export const ABNORMAL_CLOSE_CODE = 1006;

export interface ConnectionEnd {
  /** The close code (ABNORMAL_CLOSE_CODE when no socket closed: a token provider that failed, a timeout). */
  code: number;
  /** Whether the connection got its auth reply before it ended. */
  authenticated: boolean;
  /** Consecutive backoff attempts since the last successful auth (0 right after one). */
  attempt: number;
  /** Whether the token in hand can still be used (not within the refresh margin of its expiry). */
  tokenUsable: boolean;
}

export interface ReconnectPlan {
  rule: ReconnectRule;
  /** 0 reconnects at once. */
  delayMs: number;
  /** Ask the token provider for a new token before connecting. */
  freshToken: boolean;
  /** The backoff attempt after this one. */
  nextAttempt: number;
}

export function planReconnect(end: ConnectionEnd, backoff: Backoff, random: () => number): ReconnectPlan {
  const rule = reconnectRuleOf(end.code);
  const freshToken = rule === 'fresh_token_at_once' || !end.tokenUsable;
  const atOnce = (rule === 'fresh_token_at_once' || rule === 'at_once') && end.authenticated;
  if (atOnce) return { rule, delayMs: 0, freshToken, nextAttempt: end.attempt };
  return {
    rule,
    delayMs: backoffDelayMs(backoff, end.attempt, random),
    freshToken,
    nextAttempt: end.attempt + 1,
  };
}
