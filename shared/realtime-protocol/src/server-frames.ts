// Server frames: replies (one per client frame, echoing its `id`) and pushes, exactly as
// decisions.md lists them. Results of `presence.get`, `presence.stats` and `history` are the
// HTTP answers (schemas/http/realtime-presence.json, -presence-stats.json, -history.json).
import type { ClientAction, FrameId } from './client-frames.ts';
import type { ErrorCode, PresenceAction, UnsubscribedReason } from './codes.ts';
import type { JsonValue } from './json.ts';

/** The `ref` of a payload over the inline cap: stored, fetched by `bucket_key`. */
export interface PayloadRef {
  bucket_key: string;
  /** Bytes. */
  size: number;
  /** Present when known. */
  content_type?: string;
}

/** A history entry: `data` or `ref`, never both; `name` when set. */
export interface HistoryEntry {
  id: string;
  offset: number;
  epoch: string;
  data?: JsonValue;
  ref?: PayloadRef;
  name?: string;
  /** ISO 8601 UTC. */
  published_at: string;
}

export interface PresenceMember {
  /** `ext:<subject>` of the member's token. */
  identity: string;
  connections: number;
  info: JsonValue;
}

export interface AuthResult {
  /** The connection's id. */
  client: string;
  /** `ext:<subject>`. */
  subject: string;
  /** ISO 8601 UTC: when the token stops working (the connection closes with 4001 unless swapped). */
  expires_at: string;
}

export interface SubscribeResult {
  epoch: string;
  /** The channel's top offset when the subscription started. */
  offset: number;
  /** As for history reads; true without `recover`. */
  recovered: boolean;
  /** With `recover`: the entries after its offset, in order; else empty. */
  messages: HistoryEntry[];
}

export interface PresenceGetResult {
  /** Sorted by identity. */
  data: PresenceMember[];
}

export interface PresenceStatsResult {
  members: number;
  connections: number;
}

export interface HistoryResult {
  /** Oldest first. */
  data: HistoryEntry[];
  /** The channel's current epoch; "" for a channel with nothing yet. */
  epoch: string;
  top_offset: number;
  recovered: boolean;
}

// biome-ignore lint/complexity/noBannedTypes: the protocol's empty result is the JSON object {}.
export type EmptyResult = {};

export interface ActionResults {
  auth: AuthResult;
  subscribe: SubscribeResult;
  unsubscribe: EmptyResult;
  publish: EmptyResult;
  'presence.enter': EmptyResult;
  'presence.update': EmptyResult;
  'presence.leave': EmptyResult;
  'presence.get': PresenceGetResult;
  'presence.stats': PresenceStatsResult;
  history: HistoryResult;
}

export interface ResultReply<A extends ClientAction = ClientAction> {
  id: FrameId;
  result: ActionResults[A];
}

/** An error reply; it has no `id` key when it answers a frame without one (an unparseable frame). */
export interface ErrorReply {
  id?: FrameId;
  error: { code: ErrorCode; message: string };
}

export type Reply<A extends ClientAction = ClientAction> = ResultReply<A> | ErrorReply;

/** A history entry of the channel, pushed live: the entry plus `push` and `channel`. */
export interface MessagePush extends HistoryEntry {
  push: 'message';
  channel: string;
}

/** A client event; never stored, so no offset or epoch. */
export interface EventPush {
  push: 'event';
  channel: string;
  data: JsonValue;
  /** The publisher's `ext:` subject. */
  from: string;
}

export interface PresencePush {
  push: 'presence';
  channel: string;
  action: PresenceAction;
  member: PresenceMember;
}

export interface UnsubscribedPush {
  push: 'unsubscribed';
  channel: string;
  reason: UnsubscribedReason;
}

export type ServerPush = MessagePush | EventPush | PresencePush | UnsubscribedPush;
export type ServerFrame = Reply | ServerPush;

export function resultReply<A extends ClientAction>(id: FrameId, result: ActionResults[A]): ResultReply<A> {
  return { id, result };
}

/** An error reply; `id` undefined (no id to echo) leaves the `id` key out, null echoes null. */
export function errorReply(code: ErrorCode, message: string, id?: FrameId): ErrorReply {
  return id === undefined ? { error: { code, message } } : { id, error: { code, message } };
}
