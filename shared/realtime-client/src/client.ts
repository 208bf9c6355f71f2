// The client: one WebSocket at a time, authenticated by its first frame, reconnected by the close
// code's rule, every subscription resumed from its cursor and every presence entry re-entered.
// The decisions live in the pure modules (backoff, reconnect-policy, cursor, token-refresh); the
// outbox (ids, deadlines, requests waiting for a connection) and the subscriptions have their own
// files; this one owns the socket's lifecycle and the token.
import type { AuthResult, HistoryResult, HistorySelector, JsonValue } from '@lattice/realtime-protocol';
import { type Backoff, resolveBackoff } from './backoff.ts';
import { Emitter } from './emitter.ts';
import { asError, errorOfFrame, RealtimeError } from './errors.ts';
import { type FrameBody, Outbox } from './outbox.ts';
import { Presence } from './presence.ts';
import { ABNORMAL_CLOSE_CODE, planReconnect } from './reconnect-policy.ts';
import { Subscriptions } from './subscriptions.ts';
import { refreshDelayMs, tokenUsable } from './token-refresh.ts';
import type {
  ClientEvents,
  ClientState,
  ConnectOptions,
  PresenceApi,
  RealtimeClient,
  SubscribeOptions,
  Subscription,
  Timers,
  WebSocketConstructor,
  WebSocketLike,
} from './types.ts';

export const REFRESH_BEFORE_EXPIRY_MS_DEFAULT = 30_000;
export const REQUEST_TIMEOUT_MS_DEFAULT = 10_000;
/** The code the client closes a socket with when it gives up on it (no auth reply in time). */
export const CLIENT_GAVE_UP_CLOSE_CODE = 4000;

interface Connection {
  ws: WebSocketLike;
  authenticated: boolean;
  authTimer: unknown;
}

/** Opens a client; it connects at once and keeps reconnecting until close(). */
export function connect(options: ConnectOptions): RealtimeClient {
  return new Client(options);
}

const defaultTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0]),
  now: () => Date.now(),
};

class Client implements RealtimeClient {
  readonly #url: string;
  readonly #getToken: () => Promise<string>;
  readonly #WebSocket: WebSocketConstructor;
  readonly #backoff: Backoff;
  readonly #refreshBeforeExpiryMs: number;
  readonly #timers: Timers;
  readonly #random: () => number;
  readonly #requestTimeoutMs: number;
  readonly #emitter = new Emitter<ClientEvents>((error, event) => {
    // An 'error' listener that throws has nowhere left to report to.
    if (event !== 'error') this.#emitter.emit('error', asError(error));
  });
  readonly #outbox: Outbox;
  readonly #subscriptions: Subscriptions;
  readonly #presence: Presence;
  #state: ClientState = 'connecting';
  #conn: Connection | null = null;
  #token: { value: string; expiresAtMs: number | null } | null = null;
  #attempt = 0;
  #reconnectTimer: unknown = null;
  #refreshTimer: unknown = null;
  #closed = false;
  #closing: Promise<void> | null = null;

  constructor(options: ConnectOptions) {
    const WebSocket =
      options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ?? null;
    if (!WebSocket) throw new TypeError('No WebSocket: pass the WebSocket option (a constructor)');
    this.#url = options.url;
    this.#getToken = options.getToken;
    this.#WebSocket = WebSocket;
    this.#backoff = resolveBackoff(options.backoff);
    this.#refreshBeforeExpiryMs = options.refreshBeforeExpiryMs ?? REFRESH_BEFORE_EXPIRY_MS_DEFAULT;
    this.#timers = options.timers ?? defaultTimers;
    this.#random = options.random ?? Math.random;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS_DEFAULT;
    this.#outbox = new Outbox(this.#timers, this.#requestTimeoutMs);
    this.#subscriptions = new Subscriptions({
      outbox: this.#outbox,
      emitter: this.#emitter,
      timers: this.#timers,
      backoff: this.#backoff,
      random: this.#random,
      requestTimeoutMs: this.#requestTimeoutMs,
    });
    this.#presence = new Presence(this.#outbox, this.#emitter);
    void this.#startConnecting(true);
  }

  get presence(): PresenceApi {
    return this.#presence;
  }

  get state(): ClientState {
    return this.#state;
  }

  on<K extends keyof ClientEvents>(event: K, listener: (payload: ClientEvents[K]) => void): void {
    this.#emitter.on(event, listener);
  }

  off<K extends keyof ClientEvents>(event: K, listener: (payload: ClientEvents[K]) => void): void {
    this.#emitter.off(event, listener);
  }

  async publish(channel: string, data: JsonValue): Promise<void> {
    // A client event is of the moment ("typing…"): sent late after a reconnect it would mislead,
    // so one made while disconnected fails at once instead of waiting for the next connection.
    if (this.#state !== 'connected') {
      throw new RealtimeError('unavailable', `Not connected (${this.#state}): client events are not queued`);
    }
    await this.#outbox.request({ action: 'publish', channel, data });
  }

  history(channel: string, selector: HistorySelector): Promise<HistoryResult> {
    return this.#outbox.request({
      action: 'history',
      channel,
      ...selector,
    } as FrameBody) as Promise<HistoryResult>;
  }

  subscribe(channel: string, options: SubscribeOptions = {}): Promise<Subscription> {
    if (this.#closed) return Promise.reject(new RealtimeError('unavailable', 'The client is closed'));
    return this.#subscriptions.subscribe(channel, options);
  }

  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const gone = new RealtimeError('unavailable', 'The client is closed');
    this.#clearTimer(this.#reconnectTimer);
    this.#clearTimer(this.#refreshTimer);
    this.#outbox.close(gone);
    this.#subscriptions.close(gone);
    this.#presence.clear();
    const conn = this.#conn;
    this.#conn = null;
    this.#setState('closed');
    this.#closing = conn ? this.#closeSocket(conn) : Promise.resolve();
    return this.#closing;
  }

  // Connection lifecycle

  async #startConnecting(freshToken: boolean): Promise<void> {
    this.#reconnectTimer = null;
    if (this.#closed) return;
    this.#setState('connecting');
    let token: string;
    try {
      token = await this.#tokenForConnect(freshToken);
    } catch (error) {
      if (this.#closed) return;
      this.#emitter.emit('error', asError(error));
      this.#afterConnection(ABNORMAL_CLOSE_CODE, `Token provider failed: ${asError(error).message}`, false);
      return;
    }
    if (this.#closed) return;
    let ws: WebSocketLike;
    try {
      ws = new this.#WebSocket(this.#url);
    } catch (error) {
      this.#emitter.emit('error', asError(error));
      this.#afterConnection(ABNORMAL_CLOSE_CODE, `WebSocket failed: ${asError(error).message}`, false);
      return;
    }
    const conn: Connection = { ws, authenticated: false, authTimer: null };
    this.#conn = conn;
    conn.authTimer = this.#timers.setTimeout(
      () => this.#abandon(conn, `No auth reply within ${this.#requestTimeoutMs} ms`),
      this.#requestTimeoutMs,
    );
    ws.onopen = () => {
      if (this.#conn !== conn) return;
      this.#outbox.sendOn(ws, { action: 'auth', token }, this.#requestTimeoutMs, {
        resolve: (result) => this.#onAuthenticated(conn, token, result as AuthResult),
        reject: (error) => {
          // Refused: the gateway closes with 4001 next.
          if (this.#conn === conn) this.#emitter.emit('error', error);
        },
      });
    };
    ws.onmessage = (event) => {
      if (this.#conn === conn) this.#onFrame(event.data);
    };
    ws.onclose = (event) => {
      if (this.#conn === conn) this.#connectionEnded(conn, event.code, event.reason);
    };
    ws.onerror = () => {
      // A close event always follows; it carries what the client acts on.
    };
  }

  /** The token in hand while it is usable and the close did not ask for a fresh one. */
  async #tokenForConnect(freshToken: boolean): Promise<string> {
    const held = this.#token;
    if (
      !freshToken &&
      held &&
      tokenUsable(held.expiresAtMs, this.#timers.now(), this.#refreshBeforeExpiryMs)
    ) {
      return held.value;
    }
    const value = await this.#withTimeout(this.#getToken(), 'Token provider');
    this.#token = { value, expiresAtMs: null };
    return value;
  }

  #onAuthenticated(conn: Connection, token: string, result: AuthResult): void {
    if (this.#conn !== conn) return;
    this.#clearTimer(conn.authTimer);
    conn.authenticated = true;
    this.#attempt = 0;
    this.#token = { value: token, expiresAtMs: Date.parse(result.expires_at) };
    this.#scheduleRefresh(conn, result.expires_at);
    const previous = this.#state;
    this.#state = 'connected';
    // What the gateway forgot with the last connection goes first, then what waited for this one.
    this.#outbox.open(conn.ws);
    this.#subscriptions.resubscribeAll();
    this.#presence.reenterAll();
    this.#outbox.flush();
    this.#emitter.emit('state', { state: 'connected', previous });
    this.#emitter.emit('connected', result);
  }

  #connectionEnded(conn: Connection, code: number, reason: string): void {
    this.#conn = null;
    this.#clearTimer(conn.authTimer);
    this.#clearTimer(this.#refreshTimer);
    this.#outbox.connectionEnded(code);
    this.#subscriptions.connectionEnded();
    this.#afterConnection(code, reason, conn.authenticated);
  }

  #afterConnection(code: number, reason: string, authenticated: boolean): void {
    if (this.#closed) return;
    const plan = planReconnect(
      {
        code,
        authenticated,
        attempt: this.#attempt,
        tokenUsable: tokenUsable(
          this.#token?.expiresAtMs ?? null,
          this.#timers.now(),
          this.#refreshBeforeExpiryMs,
        ),
      },
      this.#backoff,
      this.#random,
    );
    this.#attempt = plan.nextAttempt;
    this.#setState('disconnected');
    this.#emitter.emit('disconnected', { code, reason, rule: plan.rule });
    if (this.#closed) return; // a listener closed the client
    if (plan.delayMs === 0) void this.#startConnecting(plan.freshToken);
    else {
      this.#reconnectTimer = this.#timers.setTimeout(
        () => void this.#startConnecting(plan.freshToken),
        plan.delayMs,
      );
    }
  }

  /** Gives up on a socket that did not authenticate in time, as if it had closed without a frame. */
  #abandon(conn: Connection, reason: string): void {
    if (this.#conn !== conn) return;
    this.#detach(conn.ws);
    try {
      conn.ws.close(CLIENT_GAVE_UP_CLOSE_CODE, reason);
    } catch {
      // Already closing: nothing to undo.
    }
    this.#connectionEnded(conn, ABNORMAL_CLOSE_CODE, reason);
  }

  #closeSocket(conn: Connection): Promise<void> {
    this.#clearTimer(conn.authTimer);
    return new Promise<void>((resolve) => {
      // Resolve on the close event, or after the request timeout if the handshake never completes.
      const timer = this.#timers.setTimeout(resolve, this.#requestTimeoutMs);
      this.#detach(conn.ws);
      conn.ws.onclose = () => {
        this.#clearTimer(timer);
        resolve();
      };
      try {
        conn.ws.close(1000, 'client closed');
      } catch {
        this.#clearTimer(timer);
        resolve();
      }
    });
  }

  #detach(ws: WebSocketLike): void {
    ws.onopen = null;
    ws.onmessage = null;
    ws.onclose = null;
    ws.onerror = null;
  }

  // The token

  #scheduleRefresh(conn: Connection, expiresAt: string): void {
    this.#clearTimer(this.#refreshTimer);
    this.#refreshTimer = null;
    const delay = refreshDelayMs(expiresAt, this.#timers.now(), this.#refreshBeforeExpiryMs);
    if (delay === null) return;
    this.#refreshTimer = this.#timers.setTimeout(() => void this.#swapToken(conn), delay);
  }

  /** A failed swap keeps the connection: it closes with 4001 at expiry and reconnects with a fresh token. */
  async #swapToken(conn: Connection): Promise<void> {
    this.#refreshTimer = null;
    let token: string;
    try {
      token = await this.#withTimeout(this.#getToken(), 'Token provider');
    } catch (error) {
      if (this.#conn === conn) this.#emitter.emit('error', asError(error));
      return;
    }
    if (this.#conn !== conn || !conn.authenticated) return;
    this.#outbox.send(
      { action: 'auth', token },
      {
        resolve: (result) => {
          if (this.#conn !== conn) return;
          const auth = result as AuthResult;
          this.#token = { value: token, expiresAtMs: Date.parse(auth.expires_at) };
          this.#scheduleRefresh(conn, auth.expires_at);
        },
        reject: (error) => {
          if (this.#conn === conn) this.#emitter.emit('error', error);
        },
      },
    );
  }

  // Frames, handled strictly in order: a reply's callbacks run before the next frame is read.

  #onFrame(data: unknown): void {
    if (typeof data !== 'string') {
      this.#emitter.emit('error', new Error('The gateway sent a frame that is not text'));
      return;
    }
    let frame: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(data);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      frame = parsed as Record<string, unknown>;
    } catch (error) {
      this.#emitter.emit(
        'error',
        new Error(`The gateway sent an unreadable frame: ${asError(error).message}`),
      );
      return;
    }
    if (typeof frame.push === 'string') this.#subscriptions.onPush(frame);
    else if ('id' in frame) this.#outbox.settle(frame);
    // An error frame without id answers a frame the gateway could not parse.
    else if ('error' in frame) this.#emitter.emit('error', errorOfFrame(frame.error));
  }

  // Helpers

  #setState(state: ClientState): void {
    const previous = this.#state;
    if (previous === state) return;
    this.#state = state;
    this.#emitter.emit('state', { state, previous });
  }

  #clearTimer(handle: unknown): void {
    if (handle !== null && handle !== undefined) this.#timers.clearTimeout(handle);
  }

  #withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = this.#timers.setTimeout(
        () => reject(new Error(`${what} did not answer within ${this.#requestTimeoutMs} ms`)),
        this.#requestTimeoutMs,
      );
      promise.then(
        (value) => {
          this.#clearTimer(timer);
          resolve(value);
        },
        (error: unknown) => {
          this.#clearTimer(timer);
          reject(error);
        },
      );
    });
  }
}
