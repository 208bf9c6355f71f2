// The codes of the WebSocket protocol: error frame codes (interface-spec.md, "WebSocket error
// frames"), close codes and what a client does on each ("WebSocket close codes" and
// decisions.md), the reasons of an `unsubscribed` push and the actions of a `presence` push.

/** The `code` of an error reply. The connection stays open; the frame answers one action. */
export const ERROR_CODES = ['invalid', 'forbidden', 'unavailable', 'rate_limited'] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return (ERROR_CODES as readonly unknown[]).includes(value);
}

/** Close codes the gateway sends. */
export const CLOSE_CODES = {
  /** No valid token on the connection: no valid first `auth` in time, or the token expired. */
  token: 4001,
  /** The gateway is draining (shutdown or redeploy). */
  draining: 4100,
  /** Slow consumer: the send buffer overflowed and messages were dropped. */
  slowConsumer: 4200,
  /** A text frame over the size limit (RFC 6455 "message too big"). */
  tooBig: 1009,
  /** A binary frame (RFC 6455 "unsupported data"). */
  unsupportedData: 1003,
  /** The gateway cannot check tokens right now (its signing keys are unreadable): back off. */
  tryAgainLater: 1013,
  /** The token already holds its most live connections (GATEWAY_MAX_CONNECTIONS_PER_TOKEN): back off. */
  tooManyConnections: 4429,
} as const;
export type CloseCodeName = keyof typeof CLOSE_CODES;
export type CloseCode = (typeof CLOSE_CODES)[CloseCodeName];

/**
 * What a client does after a close:
 * - `fresh_token_at_once`: fetch a new token from its token provider and reconnect at once (4001);
 * - `at_once`: reconnect at once (4100);
 * - `backoff_and_recover`: reconnect with backoff, resubscribing with each channel's cursor, as
 *   messages were dropped and the gap must be replayed (4200);
 * - `backoff`: reconnect with backoff (every other close).
 */
export type ReconnectRule = 'fresh_token_at_once' | 'at_once' | 'backoff_and_recover' | 'backoff';

export function reconnectRuleOf(closeCode: number): ReconnectRule {
  switch (closeCode) {
    case CLOSE_CODES.token:
      return 'fresh_token_at_once';
    case CLOSE_CODES.draining:
      return 'at_once';
    case CLOSE_CODES.slowConsumer:
      return 'backoff_and_recover';
    default:
      return 'backoff';
  }
}

/** The name of a close code the gateway sends, or null for any other code. */
export function closeCodeName(closeCode: number): CloseCodeName | null {
  for (const [name, code] of Object.entries(CLOSE_CODES))
    if (code === closeCode) return name as CloseCodeName;
  return null;
}

/**
 * Why an `unsubscribed` push ended a subscription: `forbidden` when a swapped-in token no longer
 * grants the channel; `recover` when the gateway could not fill an offset gap from history, so the
 * client resubscribes with its cursor.
 */
export const UNSUBSCRIBED_REASONS = ['forbidden', 'recover'] as const;
export type UnsubscribedReason = (typeof UNSUBSCRIBED_REASONS)[number];

/** The `action` of a `presence` push (and of a presence fan-out message). */
export const PRESENCE_ACTIONS = ['join', 'update', 'leave'] as const;
export type PresenceAction = (typeof PRESENCE_ACTIONS)[number];
