// The client's public types: options, events, the subscription handle and the minimal WebSocket
// and timer shapes it needs. The WebSocket shape is the part of the WHATWG WebSocket the client
// uses, so browsers' WebSocket, Node's global WebSocket and the `ws` package all fit, and a test
// can pass an in-memory fake.
import type {
  AuthResult,
  Cursor,
  EventPush,
  HistoryResult,
  HistorySelector,
  JsonValue,
  MessagePush,
  PresenceGetResult,
  PresencePush,
  PresenceStatsResult,
  ReconnectRule,
  SubscribeResult,
} from '@lattice/realtime-protocol';
import type { BackoffOptions } from './backoff.ts';

export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** Injectable clock and timers (tests drive them by hand). */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds since the epoch, like Date.now. */
  now(): number;
}

export interface ConnectOptions {
  /** The gateway's WebSocket URL (the token answer's `gatewayUrl`). */
  url: string;
  /** The token provider: asks the integrator's backend for a fresh token (`POST /tokens/issue` there). */
  getToken: () => Promise<string>;
  /** Default globalThis.WebSocket. */
  WebSocket?: WebSocketConstructor;
  /** Reconnect backoff with full jitter. Defaults: initialMs 500, maxMs 20 000. */
  backoff?: BackoffOptions;
  /** Swap the token (an `auth` frame) this long before `expires_at`. Default 30 000. */
  refreshBeforeExpiryMs?: number;
  timers?: Timers;
  /** Values in [0, 1) for the jitter. Default Math.random. */
  random?: () => number;
  /**
   * How long a request may take from the call to its reply, waiting for a connection included;
   * then it rejects with `unavailable`. Also bounds the token provider and the auth reply. Default 10 000.
   */
  requestTimeoutMs?: number;
}

export type ClientState = 'connecting' | 'connected' | 'disconnected' | 'closed';

/** A subscription that ended for good (not one the client resubscribes by itself). */
export interface UnsubscribedEvent {
  push: 'unsubscribed';
  channel: string;
  /** `forbidden`: the token no longer grants the channel; `invalid`: the gateway refused a resubscribe. */
  reason: 'forbidden' | 'invalid';
}

export interface ClientEvents {
  state: { state: ClientState; previous: ClientState };
  /** After each successful auth of a connection (not after a token swap). */
  connected: AuthResult;
  /** A connection ended; the client reconnects by `rule`. Not emitted for close(). */
  disconnected: { code: number; reason: string; rule: ReconnectRule };
  error: Error;
  message: MessagePush;
  event: EventPush;
  presence: PresencePush;
  unsubscribed: UnsubscribedEvent;
  /** After each recovering subscribe; `recovered: false` means messages were missed: resync (history). */
  recovery: { channel: string; recovered: boolean };
}

export interface SubscribeOptions {
  onMessage?: (message: MessagePush) => void;
  onEvent?: (event: EventPush) => void;
  onPresence?: (presence: PresencePush) => void;
  /** Start from this cursor: the reply replays what came after it. */
  recover?: Cursor;
}

/** A subscription: the first subscribe reply's fields, the live cursor and unsubscribe. */
export interface Subscription extends Readonly<SubscribeResult> {
  readonly channel: string;
  /** The last offset delivered (or the top when the subscription started) under its epoch. */
  readonly cursor: Cursor;
  /** False once unsubscribed, refused after a token swap, or the client closed. */
  readonly active: boolean;
  /** Stops delivery at once, then tells the gateway; resolves even if the connection is down. */
  unsubscribe(): Promise<void>;
}

export interface PresenceEnterOptions {
  info?: JsonValue;
  /** 1 to 3600; the gateway's default is 60. */
  ttlSeconds?: number;
}

export interface PresenceApi {
  /** Enters the roster; re-entered with the last info after every reconnect until leave(). */
  enter(channel: string, options?: PresenceEnterOptions): Promise<void>;
  update(channel: string, info: JsonValue): Promise<void>;
  leave(channel: string): Promise<void>;
  get(channel: string): Promise<PresenceGetResult>;
  stats(channel: string): Promise<PresenceStatsResult>;
}

export interface RealtimeClient {
  readonly state: ClientState;
  on<K extends keyof ClientEvents>(event: K, listener: (payload: ClientEvents[K]) => void): void;
  off<K extends keyof ClientEvents>(event: K, listener: (payload: ClientEvents[K]) => void): void;
  subscribe(channel: string, options?: SubscribeOptions): Promise<Subscription>;
  /** A client event: pushed to the channel's other subscribers, never stored. */
  publish(channel: string, data: JsonValue): Promise<void>;
  readonly presence: PresenceApi;
  history(channel: string, selector: HistorySelector): Promise<HistoryResult>;
  /** Closes for good (code 1000): no reconnect; pending requests reject with `unavailable`. */
  close(): Promise<void>;
}
