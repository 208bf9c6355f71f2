// The client: one WebSocket at a time, authenticated by its first frame, reconnected by the close
// code's rule, every subscription resumed from its cursor and every presence entry re-entered.
// The decisions live in the pure modules (backoff, reconnect-policy, cursor, token-refresh); this
// file wires them to a socket and timers.
//
// Requests made while disconnected wait for the next connection; a request rejects with
// `unavailable` when no reply came within requestTimeoutMs of the call (waiting included), or
// when the connection it was sent on ends before the reply: it may or may not have been applied,
// and only the app knows whether repeating it is safe (a client event is not idempotent).
import type {
  AuthResult,
  ClientFrame,
  Cursor,
  EventPush,
  HistoryResult,
  HistorySelector,
  JsonValue,
  MessagePush,
  PresenceGetResult,
  PresencePush,
  PresenceStatsResult,
  SubscribeResult,
} from '@lattice/realtime-protocol';
import { type Backoff, backoffDelayMs, resolveBackoff } from './backoff.ts';
import { advanceCursor, applySubscribeResult } from './cursor.ts';
import { Emitter } from './emitter.ts';
import { asError, errorOfFrame, RealtimeError } from './errors.ts';
import { PresenceEntries } from './presence-entries.ts';
import { ABNORMAL_CLOSE_CODE, planReconnect } from './reconnect-policy.ts';
import { RequestTable } from './requests.ts';
import { SubscriptionHandle, SubscriptionState } from './subscription.ts';
import { refreshDelayMs, tokenUsable } from './token-refresh.ts';
import type {
  ClientEvents,
  ClientState,
  ConnectOptions,
  PresenceApi,
  PresenceEnterOptions,
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

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type FrameBody = DistributiveOmit<ClientFrame, 'id'>;

interface Connection {
  ws: WebSocketLike;
  authenticated: boolean;
  authTimer: unknown;
}

interface Queued {
  body: FrameBody;
  deadlineMs: number;
  timer: unknown;
  resolve(result: unknown): void;
  reject(error: Error): void;
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
  readonly presence: PresenceApi;
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
  readonly #requests = new RequestTable();
  readonly #subscriptions = new Map<string, SubscriptionState>();
  readonly #entries = new PresenceEntries();
  #queue: Queued[] = [];
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
    this.presence = {
      enter: (channel, opts) => this.#presenceEnter(channel, opts),
      update: async (channel, info) => {
        await this.#request({ action: 'presence.update', channel, info });
        this.#entries.updated(channel, info);
      },
      leave: async (channel) => {
        this.#entries.left(channel);
        await this.#request({ action: 'presence.leave', channel });
      },
      get: (channel) => this.#request({ action: 'presence.get', channel }) as Promise<PresenceGetResult>,
      stats: (channel) =>
        this.#request({ action: 'presence.stats', channel }) as Promise<PresenceStatsResult>,
    };
    void this.#startConnecting(true);
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
    await this.#request({ action: 'publish', channel, data });
  }

  history(channel: string, selector: HistorySelector): Promise<HistoryResult> {
    return this.#request({ action: 'history', channel, ...selector } as FrameBody) as Promise<HistoryResult>;
  }

  subscribe(channel: string, options: SubscribeOptions = {}): Promise<Subscription> {
    if (this.#closed) return Promise.reject(new RealtimeError('unavailable', 'The client is closed'));
    if (this.#subscriptions.has(channel)) {
      return Promise.reject(new RealtimeError('invalid', `Already subscribed to ${channel}`));
    }
    const sub = new SubscriptionState(channel, options);
    this.#subscriptions.set(channel, sub);
    return new Promise<Subscription>((resolve, reject) => {
      const timer = this.#timers.setTimeout(() => {
        if (sub.opening === null) return;
        sub.opening = null;
        this.#dropSubscription(sub);
        // A subscribe still in flight may yet succeed on the gateway: undo it (frames are handled in order).
        if (sub.pendingId !== null) this.#sendUnsubscribe(channel);
        reject(new RealtimeError('unavailable', `No subscribe reply within ${this.#requestTimeoutMs} ms`));
      }, this.#requestTimeoutMs);
      sub.opening = { resolve, reject, timer };
      if (this.#isConnected()) this.#sendSubscribe(sub);
    });
  }

  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const gone = new RealtimeError('unavailable', 'The client is closed');
    this.#clearTimer(this.#reconnectTimer);
    this.#clearTimer(this.#refreshTimer);
    for (const q of this.#queue.splice(0)) {
      this.#clearTimer(q.timer);
      q.reject(gone);
    }
    for (const sub of [...this.#subscriptions.values()]) {
      const opening = sub.opening;
      this.#dropSubscription(sub);
      opening?.reject(gone);
    }
    this.#entries.clear();
    this.#requests.rejectAll(gone);
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
      this.#send(conn, { action: 'auth', token }, this.#requestTimeoutMs, {
        resolve: (result) => this.#onAuthenticated(conn, token, result as AuthResult),
        reject: (error) => {
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
    const now = this.#timers.now();
    const held = this.#token;
    if (!freshToken && held && tokenUsable(held.expiresAtMs, now, this.#refreshBeforeExpiryMs)) {
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
    // What the gateway forgot with the last connection goes first, then what waited for it.
    for (const sub of this.#subscriptions.values()) this.#sendSubscribe(sub);
    for (const [channel, entry] of this.#entries.list()) this.#reenter(channel, entry.info, entry.ttlSeconds);
    for (const q of this.#queue.splice(0)) this.#sendQueued(conn, q);
    this.#emitter.emit('state', { state: 'connected', previous });
    this.#emitter.emit('connected', result);
  }

  #connectionEnded(conn: Connection, code: number, reason: string): void {
    this.#conn = null;
    this.#clearTimer(conn.authTimer);
    this.#clearTimer(this.#refreshTimer);
    this.#requests.rejectAll(
      new RealtimeError('unavailable', `The connection closed (${code}) before the reply`),
    );
    for (const sub of this.#subscriptions.values()) {
      sub.pendingId = null;
      this.#clearTimer(sub.retryTimer);
      sub.retryTimer = null;
    }
    this.#afterConnection(code, reason, conn.authenticated);
  }

  #afterConnection(code: number, reason: string, authenticated: boolean): void {
    if (this.#closed) return;
    const now = this.#timers.now();
    const plan = planReconnect(
      {
        code,
        authenticated,
        attempt: this.#attempt,
        tokenUsable: tokenUsable(this.#token?.expiresAtMs ?? null, now, this.#refreshBeforeExpiryMs),
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
    this.#send(conn, { action: 'auth', token }, this.#requestTimeoutMs, {
      resolve: (result) => {
        if (this.#conn !== conn) return;
        const auth = result as AuthResult;
        this.#token = { value: token, expiresAtMs: Date.parse(auth.expires_at) };
        this.#scheduleRefresh(conn, auth.expires_at);
      },
      reject: (error) => {
        if (this.#conn === conn) this.#emitter.emit('error', error);
      },
    });
  }

  // Frames

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
    if (typeof frame.push === 'string') this.#onPush(frame);
    else if ('id' in frame) this.#requests.settle(frame);
    else if ('error' in frame) this.#emitter.emit('error', errorOfFrame(frame.error));
  }

  #onPush(frame: Record<string, unknown>): void {
    const channel = typeof frame.channel === 'string' ? frame.channel : '';
    // Pushes for a channel the app unsubscribed from locally are dropped: unsubscribe stops delivery at once.
    const sub = this.#subscriptions.get(channel);
    if (!sub) return;
    switch (frame.push) {
      case 'message':
        this.#deliver(sub, frame as unknown as MessagePush);
        return;
      case 'event':
        this.#call(() => sub.handlers.onEvent?.(frame as unknown as EventPush));
        this.#emitter.emit('event', frame as unknown as EventPush);
        return;
      case 'presence':
        this.#call(() => sub.handlers.onPresence?.(frame as unknown as PresencePush));
        this.#emitter.emit('presence', frame as unknown as PresencePush);
        return;
      case 'unsubscribed':
        if (frame.reason === 'recover') this.#sendSubscribe(sub);
        else this.#endSubscription(sub, 'forbidden');
        return;
    }
  }

  #deliver(sub: SubscriptionState, message: MessagePush): void {
    const step = advanceCursor(sub.cursor, message);
    sub.cursor = step.cursor;
    if (!step.deliver) return;
    this.#call(() => sub.handlers.onMessage?.(message));
    this.#emitter.emit('message', message);
  }

  /** An app handler that throws must not stop the frame's handling: its error becomes an 'error' event. */
  #call(handler: () => void): void {
    try {
      handler();
    } catch (error) {
      this.#emitter.emit('error', asError(error));
    }
  }

  // Subscriptions

  #sendSubscribe(sub: SubscriptionState): void {
    const conn = this.#conn;
    if (!conn || !this.#isConnected()) return;
    this.#clearTimer(sub.retryTimer);
    sub.retryTimer = null;
    const sent: Cursor | null = sub.cursor ? { offset: sub.cursor.offset, epoch: sub.cursor.epoch } : null;
    const body: FrameBody = sent
      ? { action: 'subscribe', channel: sub.channel, recover: sent }
      : { action: 'subscribe', channel: sub.channel };
    sub.pendingId = this.#send(conn, body, this.#requestTimeoutMs, {
      resolve: (result) => this.#onSubscribed(sub, sent, result as SubscribeResult),
      reject: (error) => this.#onSubscribeRefused(conn, sub, error),
    });
  }

  #onSubscribed(sub: SubscriptionState, sent: Cursor | null, result: SubscribeResult): void {
    if (this.#subscriptions.get(sub.channel) !== sub) return;
    sub.pendingId = null;
    sub.retryAttempt = 0;
    const outcome = applySubscribeResult(sent, result);
    sub.cursor = outcome.cursor;
    for (const entry of outcome.deliver) {
      const message: MessagePush = { push: 'message', channel: sub.channel, ...entry };
      this.#call(() => sub.handlers.onMessage?.(message));
      this.#emitter.emit('message', message);
    }
    if (outcome.recovered !== null) {
      this.#emitter.emit('recovery', { channel: sub.channel, recovered: outcome.recovered });
    }
    const opening = sub.opening;
    if (opening) {
      sub.opening = null;
      this.#clearTimer(opening.timer);
      sub.handle = new SubscriptionHandle(sub, result, (s) => this.#unsubscribe(s));
      opening.resolve(sub.handle);
    }
  }

  #onSubscribeRefused(conn: Connection, sub: SubscriptionState, error: Error): void {
    // The connection ended: the next one resubscribes.
    if (this.#subscriptions.get(sub.channel) !== sub || this.#conn !== conn) return;
    sub.pendingId = null;
    const opening = sub.opening;
    if (opening) {
      sub.opening = null;
      this.#clearTimer(opening.timer);
      this.#dropSubscription(sub);
      opening.reject(error);
      return;
    }
    const code = error instanceof RealtimeError ? error.code : 'unavailable';
    if (code === 'forbidden' || code === 'invalid') {
      this.#emitter.emit('error', error);
      this.#endSubscription(sub, code);
      return;
    }
    // unavailable or rate_limited: retry with backoff. A timed-out subscribe may still land, so undo it first.
    if (!(error instanceof RealtimeError) || !error.fromGateway) this.#sendUnsubscribe(sub.channel);
    const delay = backoffDelayMs(this.#backoff, sub.retryAttempt, this.#random);
    sub.retryAttempt += 1;
    sub.retryTimer = this.#timers.setTimeout(() => {
      sub.retryTimer = null;
      if (this.#subscriptions.get(sub.channel) === sub && sub.pendingId === null) this.#sendSubscribe(sub);
    }, delay);
  }

  #endSubscription(sub: SubscriptionState, reason: 'forbidden' | 'invalid'): void {
    this.#dropSubscription(sub);
    this.#emitter.emit('unsubscribed', { push: 'unsubscribed', channel: sub.channel, reason });
  }

  #dropSubscription(sub: SubscriptionState): void {
    if (this.#subscriptions.get(sub.channel) === sub) this.#subscriptions.delete(sub.channel);
    sub.active = false;
    this.#clearTimer(sub.retryTimer);
    sub.retryTimer = null;
    if (sub.opening) this.#clearTimer(sub.opening.timer);
  }

  async #unsubscribe(sub: SubscriptionState): Promise<void> {
    if (this.#subscriptions.get(sub.channel) !== sub) return;
    this.#dropSubscription(sub);
    // The local subscription is gone either way; a connection that ends takes the gateway's with it.
    if (this.#isConnected())
      await this.#request({ action: 'unsubscribe', channel: sub.channel }).catch(() => {});
  }

  #sendUnsubscribe(channel: string): void {
    const conn = this.#conn;
    if (conn && this.#isConnected()) {
      this.#send(conn, { action: 'unsubscribe', channel }, this.#requestTimeoutMs, {
        resolve: () => {},
        reject: () => {},
      });
    }
  }

  // Presence

  async #presenceEnter(channel: string, options: PresenceEnterOptions = {}): Promise<void> {
    const version = this.#entries.begin(channel);
    await this.#request(enterFrame(channel, options.info, options.ttlSeconds));
    this.#entries.entered(channel, version, { info: options.info, ttlSeconds: options.ttlSeconds });
  }

  #reenter(channel: string, info: JsonValue | undefined, ttlSeconds: number | undefined): void {
    const conn = this.#conn;
    if (!conn) return;
    this.#send(conn, enterFrame(channel, info, ttlSeconds), this.#requestTimeoutMs, {
      resolve: () => {},
      reject: (error) => {
        if (this.#conn !== conn) return;
        if (error instanceof RealtimeError && error.code === 'forbidden') this.#entries.left(channel);
        this.#emitter.emit('error', error);
      },
    });
  }

  // Requests

  #isConnected(): boolean {
    return this.#state === 'connected' && this.#conn !== null && this.#conn.authenticated;
  }

  /** An app request: sent now when connected, else queued for the next connection. */
  #request(body: FrameBody): Promise<unknown> {
    if (this.#closed) return Promise.reject(new RealtimeError('unavailable', 'The client is closed'));
    return new Promise((resolve, reject) => {
      const conn = this.#conn;
      if (conn && this.#isConnected()) {
        this.#send(conn, body, this.#requestTimeoutMs, { resolve, reject });
        return;
      }
      const queued: Queued = {
        body,
        deadlineMs: this.#timers.now() + this.#requestTimeoutMs,
        timer: null,
        resolve,
        reject,
      };
      queued.timer = this.#timers.setTimeout(() => {
        this.#queue = this.#queue.filter((q) => q !== queued);
        reject(new RealtimeError('unavailable', `Not connected within ${this.#requestTimeoutMs} ms`));
      }, this.#requestTimeoutMs);
      this.#queue.push(queued);
    });
  }

  #sendQueued(conn: Connection, q: Queued): void {
    this.#clearTimer(q.timer);
    const left = Math.max(q.deadlineMs - this.#timers.now(), 0);
    this.#send(conn, q.body, left, { resolve: q.resolve, reject: q.reject });
  }

  /** Sends a frame with the next id; the waiter gets its reply, or `unavailable` after timeoutMs. */
  #send(
    conn: Connection,
    body: FrameBody,
    timeoutMs: number,
    waiter: { resolve(result: unknown): void; reject(error: Error): void },
  ): number {
    const id = this.#requests.nextId();
    const timer = this.#timers.setTimeout(() => {
      this.#requests.reject(id, new RealtimeError('unavailable', `No reply within ${timeoutMs} ms`));
    }, timeoutMs);
    this.#requests.track(id, {
      resolve: (result) => {
        this.#clearTimer(timer);
        waiter.resolve(result);
      },
      reject: (error) => {
        this.#clearTimer(timer);
        waiter.reject(error);
      },
    });
    try {
      conn.ws.send(JSON.stringify({ id, ...body }));
    } catch (error) {
      this.#requests.reject(id, new RealtimeError('unavailable', `Send failed: ${asError(error).message}`));
    }
    return id;
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

function enterFrame(channel: string, info: JsonValue | undefined, ttlSeconds: number | undefined): FrameBody {
  return {
    action: 'presence.enter',
    channel,
    ...(info === undefined ? {} : { info }),
    ...(ttlSeconds === undefined ? {} : { ttl_seconds: ttlSeconds }),
  };
}
