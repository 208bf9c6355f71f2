// @lattice/realtime-client: the client of the realtime WebSocket protocol, for browsers and Node.
// It connects with a token from the app's token provider, reconnects by each close code's rule,
// resumes every subscription from its cursor (each message delivered at most once, in order),
// re-enters presence and swaps the token before it expires. docs/realtime-client.md has the guide;
// the package's README.md is the integrators' one.
//
// Integrators install it packed (`npm pack`): dist/ holds this module bundled by esbuild with
// @lattice/realtime-protocol inlined, and tsc's declarations (build-dist.ts, outside src/). Like
// the protocol, the only package it imports, it must stay free of Node-only code (no node:
// modules, no Buffer or process). `self-contained.test.ts` fails when that rule breaks.

export type {
  AuthResult,
  CloseCode,
  CloseCodeName,
  Cursor,
  ErrorCode,
  EventPush,
  HistoryEntry,
  HistoryResult,
  HistorySelector,
  JsonValue,
  MessagePush,
  PayloadRef,
  PresenceGetResult,
  PresenceMember,
  PresencePush,
  PresenceStatsResult,
  ReconnectRule,
  SubscribeResult,
} from '@lattice/realtime-protocol';
// The gateway's close codes by name, for a `disconnected` listener (CLOSE_CODES.tooManyConnections).
export { CLOSE_CODES } from '@lattice/realtime-protocol';
export type { BackoffOptions } from './backoff.ts';
export { BACKOFF_INITIAL_MS_DEFAULT, BACKOFF_MAX_MS_DEFAULT } from './backoff.ts';
export {
  CLIENT_GAVE_UP_CLOSE_CODE,
  connect,
  REFRESH_BEFORE_EXPIRY_MS_DEFAULT,
  REQUEST_TIMEOUT_MS_DEFAULT,
} from './client.ts';
export { RealtimeError } from './errors.ts';
export type {
  ClientEvents,
  ClientState,
  ConnectOptions,
  PresenceApi,
  PresenceEnterOptions,
  RealtimeClient,
  SubscribeOptions,
  Subscription,
  Timers,
  UnsubscribedEvent,
  WebSocketConstructor,
  WebSocketLike,
} from './types.ts';
