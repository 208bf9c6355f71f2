// @lattice/realtime-protocol: the realtime WebSocket protocol (client frames and their parser,
// replies, pushes, error and close codes, the protocol's limits) and the fan-out encoding that
// channel actors publish over Redis pub/sub to gateways. The gateway, the channel actor and the
// browser client all take these definitions from here, so they cannot disagree.
//
// This package must stay dependency-free: no dependencies in package.json and no import from
// outside src/ (no node: modules, no Buffer or process), because esbuild bundles it for
// browsers. `self-contained.test.ts` fails when that rule breaks.

export type { ClientFrameParse, ParsedClientFrame } from './client-frame-parser.ts';
export { parseClientFrame, validateClientFrame } from './client-frame-parser.ts';
export type {
  AuthFrame,
  ClientAction,
  ClientFrame,
  Cursor,
  FrameId,
  HistoryFrame,
  HistorySelector,
  PresenceEnterFrame,
  PresenceGetFrame,
  PresenceLeaveFrame,
  PresenceStatsFrame,
  PresenceUpdateFrame,
  PublishFrame,
  SubscribeFrame,
  UnsubscribeFrame,
} from './client-frames.ts';
export { ACTION_OPS, CLIENT_ACTIONS } from './client-frames.ts';
export type {
  CloseCode,
  CloseCodeName,
  ErrorCode,
  PresenceAction,
  ReconnectRule,
  UnsubscribedReason,
} from './codes.ts';
export {
  CLOSE_CODES,
  closeCodeName,
  ERROR_CODES,
  isErrorCode,
  PRESENCE_ACTIONS,
  reconnectRuleOf,
  UNSUBSCRIBED_REASONS,
} from './codes.ts';
export type {
  FanOutEntry,
  FanOutMessage,
  FanOutPayload,
  PresenceErrorCode,
  PresenceResult,
} from './fanout.ts';
export {
  decodeFanOutMessage,
  decodePresenceResult,
  encodeFanOutMessage,
  encodePresenceResult,
  PRESENCE_ERROR_REPLY_CODES,
} from './fanout.ts';
export type { JsonValue } from './json.ts';
export { jsonText, utf8ByteLength } from './json.ts';
export {
  AUTH_TIMEOUT_MS,
  CHANNEL_NAME_MAX,
  CHANNEL_NAME_MIN,
  CLIENT_EVENT_BURST,
  CLIENT_EVENT_DATA_MAX_BYTES,
  CLIENT_EVENT_REFILL_PER_SECOND,
  EPOCH_MAX_LENGTH,
  HISTORY_LAST_N_MAX,
  HISTORY_LAST_N_MIN,
  NAMESPACE_NAME_MAX,
  PRESENCE_INFO_MAX_BYTES,
  PRESENCE_TTL_DEFAULT_SECONDS,
  PRESENCE_TTL_MAX_SECONDS,
  PRESENCE_TTL_MIN_SECONDS,
  RECOVER_MAX_BYTES,
  RECOVER_MAX_ENTRIES,
  TEXT_FRAME_MAX_BYTES,
} from './limits.ts';
export type {
  ActionResults,
  AuthResult,
  EmptyResult,
  ErrorReply,
  EventPush,
  HistoryEntry,
  HistoryResult,
  MessagePush,
  PayloadRef,
  PresenceGetResult,
  PresenceMember,
  PresencePush,
  PresenceStatsResult,
  Reply,
  ResultReply,
  ServerFrame,
  ServerPush,
  SubscribeResult,
  UnsubscribedPush,
} from './server-frames.ts';
export { errorReply, resultReply } from './server-frames.ts';
