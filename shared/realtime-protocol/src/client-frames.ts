// Client frames, exactly as decisions.md ("Realtime tokens and the WebSocket protocol") lists
// them. Frames are JSON text; every frame carries an `id` of any JSON type, echoed unchanged by
// its reply.
import type { JsonValue } from './json.ts';

/** The client's `id`: any JSON value, echoed with the same JSON type. */
export type FrameId = JsonValue;

/** A channel position: the last offset the client has, under its epoch. */
export interface Cursor {
  offset: number;
  epoch: string;
}

export interface AuthFrame {
  id: FrameId;
  action: 'auth';
  token: string;
}

export interface SubscribeFrame {
  id: FrameId;
  action: 'subscribe';
  channel: string;
  /** Replays the entries after this cursor in the reply. */
  recover?: Cursor;
}

export interface UnsubscribeFrame {
  id: FrameId;
  action: 'unsubscribe';
  channel: string;
}

/** A client event: pushed to the channel's other subscribers, never stored. */
export interface PublishFrame {
  id: FrameId;
  action: 'publish';
  channel: string;
  data: JsonValue;
}

export interface PresenceEnterFrame {
  id: FrameId;
  action: 'presence.enter';
  channel: string;
  /** Default null. */
  info?: JsonValue;
  /** 1 to 3600; default 60. */
  ttl_seconds?: number;
}

export interface PresenceUpdateFrame {
  id: FrameId;
  action: 'presence.update';
  channel: string;
  info: JsonValue;
}

export interface PresenceLeaveFrame {
  id: FrameId;
  action: 'presence.leave';
  channel: string;
}

export interface PresenceGetFrame {
  id: FrameId;
  action: 'presence.get';
  channel: string;
}

export interface PresenceStatsFrame {
  id: FrameId;
  action: 'presence.stats';
  channel: string;
}

/** Exactly one of a window (`last_n` or `last_ms`) or a cursor (`offset` and `epoch` together). */
export type HistorySelector = { last_n: number } | { last_ms: number } | Cursor;

export type HistoryFrame = {
  id: FrameId;
  action: 'history';
  channel: string;
} & HistorySelector;

export type ClientFrame =
  | AuthFrame
  | SubscribeFrame
  | UnsubscribeFrame
  | PublishFrame
  | PresenceEnterFrame
  | PresenceUpdateFrame
  | PresenceLeaveFrame
  | PresenceGetFrame
  | PresenceStatsFrame
  | HistoryFrame;

export type ClientAction = ClientFrame['action'];

export const CLIENT_ACTIONS = [
  'auth',
  'subscribe',
  'unsubscribe',
  'publish',
  'presence.enter',
  'presence.update',
  'presence.leave',
  'presence.get',
  'presence.stats',
  'history',
] as const satisfies readonly ClientAction[];

/** The token operation an action needs (decisions.md); `auth` needs none. */
export const ACTION_OPS = {
  auth: null,
  subscribe: 'subscribe',
  unsubscribe: null,
  publish: 'publish',
  'presence.enter': 'presence',
  'presence.update': 'presence',
  'presence.leave': 'presence',
  'presence.get': 'presence',
  'presence.stats': 'presence',
  history: 'history',
} as const satisfies Record<ClientAction, 'subscribe' | 'publish' | 'presence' | 'history' | null>;
