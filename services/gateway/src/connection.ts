// One WebSocket connection: authentication, the frames of decisions.md handled one at a time in
// arrival order, its subscriptions (subscription-logic.ts does the seam and gap decisions), its
// presence entries kept alive while it lives, and its client-event budget. Everything the
// connection does to the socket goes through `send` and `closeWith`, which enforce the send
// buffer bound (4200) and queue close codes behind data already buffered.
import { ApiError, type Environment, type Logger, type Scheduler, type Timer } from '@lattice/core';
import {
  type ChannelId,
  namespaceOf,
  type RealtimeClaims,
  type RealtimeHttp,
  type TokenOp,
} from '@lattice/realtime';
import {
  ACTION_OPS,
  AUTH_TIMEOUT_MS,
  type AuthResult,
  CLOSE_CODES,
  type ErrorCode,
  encodeFanOutMessage,
  errorReply,
  type HistoryEntry,
  type HistoryResult,
  type ParsedClientFrame,
  PRESENCE_ERROR_REPLY_CODES,
  type PresenceResult,
  parseClientFrame,
  resultReply,
} from '@lattice/realtime-protocol';
import type { WebSocket } from 'ws';
import type { ChannelHub, HubListener } from './channel-hub.ts';
import { type ClientEventBucket, createClientEventBucket } from './client-event-bucket.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import { type PresenceCommands, PresenceUnavailableError } from './presence-commands.ts';
import { subscribeReply } from './subscribe-reply.ts';
import {
  onFilled,
  onLive,
  onResync,
  onStarted,
  type SubscriptionAction,
  type SubscriptionState,
  startingSubscription,
} from './subscription-logic.ts';
import { checkToken } from './token-check.ts';
import type { TokenSlots } from './token-slots.ts';

export interface ConnectionLimits {
  sendBufferMaxBytes: number;
  /** How long a close waits for its closing handshake before the socket is dropped. */
  closeHandshakeMs: number;
  /** How long the first frame may take. Default AUTH_TIMEOUT_MS. */
  authTimeoutMs?: number;
}

export interface ConnectionDeps {
  id: string;
  socket: WebSocket;
  environment: Environment;
  gatewayId: string;
  limits: ConnectionLimits;
  hub: ChannelHub;
  realtime: RealtimeHttp;
  presence: PresenceCommands;
  /** Publishes a client event's fan-out text on the channel's pub/sub channel. */
  publishEvent(id: ChannelId, text: string): Promise<void>;
  /** Live connections per token across the environment's gateways (token-slots.ts). */
  tokenSlots: TokenSlots;
  scheduler: Scheduler;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Calls `flush()` on the connection once the current event-loop turn is over. */
  flushAfterTurn(connection: Connection): void;
  onClosed(connection: Connection): void;
}

/** The TCP socket under a `ws` WebSocket (ws keeps it in `_socket`), to write a turn's frames at once. */
interface RawSocket {
  cork(): void;
  uncork(): void;
  write(data: Buffer): boolean;
}

function rawSocket(socket: WebSocket): RawSocket | undefined {
  return (socket as unknown as { _socket?: RawSocket })._socket;
}

/** Frames a connection may have waiting; beyond, its socket is not read until they are handled. */
const MAX_PENDING_FRAMES = 64;

/** A live message or a replayed entry: its position and its push frame. */
interface Item {
  offset: number;
  epoch: string;
  frame(): Buffer;
  /** A live message's whole WebSocket frame, shared by every receiver. */
  wire?: () => Buffer;
}

interface Subscription {
  ref: ChannelId;
  state: SubscriptionState<Item>;
  listener: HubListener;
}

interface PresenceEntry {
  infoJson: string | null;
  ttlSeconds: number;
  keepAlive: Timer;
}

/** A refusal answered with an error frame. */
class FrameError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

const entryFrame = (channel: string, entry: HistoryEntry): Item => ({
  offset: entry.offset,
  epoch: entry.epoch,
  frame: () => Buffer.from(JSON.stringify({ push: 'message', channel, ...entry }), 'utf8'),
});

function errorOfApi(err: ApiError): FrameError {
  if (err.status === 400) return new FrameError('invalid', err.message);
  if (err.status === 403 || err.status === 404) return new FrameError('forbidden', err.message);
  return new FrameError('unavailable', err.message);
}

export class Connection {
  private claims: RealtimeClaims | null = null;
  private grants = new Map<string, ReadonlySet<TokenOp>>();
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly presence = new Map<string, PresenceEntry>();
  private readonly bucket: ClientEventBucket;
  private queue: Promise<void> = Promise.resolve();
  private authTimer: Timer | undefined;
  private dropTimer: Timer | undefined;
  /** Frames received and not yet handled. */
  private pending = 0;
  private expiryTimer: Timer | undefined;
  private closing = false;
  /** The socket holds this turn's frames until `flush`. */
  private corked = false;
  /** The close code this side sent, which the metrics count (the peer may never echo it). */
  private sentCode: number | undefined;
  /** Closed as a slow consumer: what it is not sent counts as dropped. */
  private slow = false;
  /** Consecutive pings without a pong. */
  missedPongs = 0;

  private readonly deps: ConnectionDeps;

  constructor(deps: ConnectionDeps) {
    this.deps = deps;
    const { socket, scheduler } = deps;
    this.bucket = createClientEventBucket(scheduler.nowMs());
    this.authTimer = scheduler.setTimeout(
      () => this.closeWith(CLOSE_CODES.token, 'no auth frame in time'),
      deps.limits.authTimeoutMs ?? AUTH_TIMEOUT_MS,
      { unref: true },
    );
    socket.on('message', (data, isBinary) => {
      // In arrival order, a binary frame's close included: frames before it are answered first.
      const text = isBinary ? null : data.toString();
      this.pending += 1;
      // A client that sends faster than its frames are handled is not read until they are.
      if (this.pending === MAX_PENDING_FRAMES) socket.pause();
      this.queue = this.queue
        .then(() =>
          text === null
            ? this.closeWith(CLOSE_CODES.unsupportedData, 'binary frames are not supported')
            : this.handle(text),
        )
        .catch((err: unknown) => this.failed(err))
        .finally(() => {
          this.pending -= 1;
          if (this.pending === MAX_PENDING_FRAMES - 1) socket.resume();
        });
    });
    socket.on('pong', () => {
      this.missedPongs = 0;
    });
    socket.on('close', (code) => this.closed(code));
    socket.on('error', (err) => deps.logger.debug({ err, connection: deps.id }, 'socket error'));
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** Closes with `code` once the data already buffered is sent (dropped after the handshake time). */
  closeWith(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.sentCode = code;
    const { socket, scheduler } = this.deps;
    socket.close(code, reason);
    // The close frame goes out behind the frames held for this turn.
    if (this.corked) {
      this.corked = false;
      rawSocket(socket)?.uncork();
    }
    this.dropTimer = scheduler.setTimeout(() => socket.terminate(), this.deps.limits.closeHandshakeMs, {
      unref: true,
    });
  }

  /** A bug, not a client's doing: logged, and the connection closed (1011) rather than stuck. */
  private failed(err: unknown): void {
    this.deps.logger.error({ err, connection: this.deps.id }, 'connection failed');
    this.closeWith(1011, 'internal error');
  }

  /** Drops the socket without a closing handshake (a peer that stopped answering pings). */
  terminate(): void {
    this.closing = true;
    this.deps.socket.terminate();
  }

  ping(): void {
    if (this.closing) return;
    this.missedPongs += 1;
    this.deps.socket.ping();
  }

  private send(frame: Buffer | string, kind?: Parameters<GatewayMetrics['push']>[0]): void {
    const { socket } = this.deps;
    if (this.closing || socket.readyState !== socket.OPEN) {
      if (this.slow && kind === 'message') this.deps.metrics.dropped(1);
      return;
    }
    this.corkForTurn();
    socket.send(frame, { binary: false });
    if (kind) this.deps.metrics.push(kind);
  }

  /**
   * A push built once for every receiver as a whole WebSocket frame, written to the TCP socket as
   * is: `ws` would frame it again for each. Safe because `ws` writes its own frames synchronously
   * (no permessage-deflate), so frames keep their order, and its buffered amount counts these.
   */
  private sendWire(wire: Buffer, kind: Parameters<GatewayMetrics['push']>[0]): void {
    const { socket } = this.deps;
    const raw = rawSocket(socket);
    if (this.closing || socket.readyState !== socket.OPEN || !raw) {
      if (this.slow && kind === 'message') this.deps.metrics.dropped(1);
      return;
    }
    this.corkForTurn();
    raw.write(wire);
    this.deps.metrics.push(kind);
  }

  /** Frames sent within one event-loop turn leave in one write (see `flush`). */
  private corkForTurn(): void {
    if (this.corked) return;
    this.corked = true;
    rawSocket(this.deps.socket)?.cork();
    this.deps.flushAfterTurn(this);
  }

  /**
   * The turn's frames go to the kernel together; what it does not take stays in the send buffer,
   * which is measured here, after the write, against its bound (4200 beyond it).
   */
  flush(): void {
    if (!this.corked) return;
    this.corked = false;
    const { socket } = this.deps;
    rawSocket(socket)?.uncork();
    if (!this.closing && socket.bufferedAmount > this.deps.limits.sendBufferMaxBytes) {
      this.deps.logger.info({ connection: this.deps.id }, 'slow consumer: send buffer over its bound');
      this.slow = true;
      this.closeWith(CLOSE_CODES.slowConsumer, 'slow consumer');
    }
  }

  private reply(frame: unknown): void {
    this.send(JSON.stringify(frame));
  }

  private async handle(text: string): Promise<void> {
    if (this.closing) return;
    const parsed = parseClientFrame(text);
    if (this.claims === null) {
      await this.authenticate(parsed.ok ? parsed.frame : null);
      return;
    }
    if (!parsed.ok) {
      this.reply(parsed.reply);
      return;
    }
    const frame = parsed.frame;
    try {
      const result = await this.dispatch(frame, parsed.json);
      if (this.closing) return;
      this.reply(resultReply(frame.id, result as never));
      // What follows a reply comes after it: a subscription's pushes, a swap's consequences.
      if (frame.action === 'subscribe') this.start(frame.channel);
      if (frame.action === 'auth') this.endUngranted();
    } catch (err) {
      if (err instanceof FrameError) this.reply(errorReply(err.code, err.message, frame.id));
      else {
        this.deps.logger.error({ err, connection: this.deps.id, action: frame.action }, 'frame failed');
        this.reply(errorReply('unavailable', 'the gateway could not serve this right now', frame.id));
      }
    }
  }

  private async authenticate(frame: ParsedClientFrame | null): Promise<void> {
    if (frame === null || frame.action !== 'auth') {
      this.deps.metrics.authFailed('no_auth_frame');
      this.closeWith(CLOSE_CODES.token, 'the first frame must be a valid auth frame');
      return;
    }
    let check: Awaited<ReturnType<typeof checkToken>>;
    try {
      check = await checkToken(
        frame.token,
        this.deps.environment,
        this.deps.realtime.signingKeys,
        this.deps.scheduler.nowMs(),
      );
    } catch (err) {
      this.deps.logger.error({ err }, 'signing keys unreadable; refusing the connection for now');
      this.closeWith(CLOSE_CODES.tryAgainLater, 'try again later');
      return;
    }
    if (this.closing) return;
    if ('rejected' in check) {
      this.deps.metrics.authFailed(check.rejected);
      this.closeWith(CLOSE_CODES.token, `token refused: ${check.rejected}`);
      return;
    }
    // Never 4001 here: a client fetches a fresh token and comes back at once after 4001, and a
    // fresh token of a leaked one's holder would be refused the same way; 4429 makes it back off.
    if (!(await this.deps.tokenSlots.acquire(frame.token, this.deps.id))) {
      this.deps.metrics.authFailed('too_many_connections');
      this.closeWith(CLOSE_CODES.tooManyConnections, 'too many connections for this token');
      return;
    }
    if (this.closing) {
      this.deps.tokenSlots.release(this.deps.id);
      return;
    }
    this.deps.scheduler.clearTimer(this.authTimer);
    this.adopt(check.claims);
    const result: AuthResult = {
      client: this.deps.id,
      subject: check.claims.sub,
      expires_at: new Date(check.claims.exp * 1000).toISOString(),
    };
    this.reply(resultReply(frame.id, result));
  }

  /** Takes the token's grants and arms the close at its `exp`. */
  private adopt(claims: RealtimeClaims): void {
    const { scheduler } = this.deps;
    this.claims = claims;
    this.grants = new Map(claims.grants.map((g) => [g.name, new Set(g.ops)]));
    scheduler.clearTimer(this.expiryTimer);
    this.expiryTimer = scheduler.setTimeout(
      () => this.closeWith(CLOSE_CODES.token, 'token expired'),
      Math.max(0, claims.exp * 1000 - scheduler.nowMs()),
      { unref: true },
    );
  }

  private ref(channel: string): ChannelId {
    return { productId: this.claims!.pid, environment: this.deps.environment, channel };
  }

  private allowed(channel: string, op: TokenOp): boolean {
    return this.grants.get(channel)?.has(op) ?? false;
  }

  private async dispatch(frame: ParsedClientFrame, json: string | null): Promise<unknown> {
    const op = ACTION_OPS[frame.action];
    if (op !== null && 'channel' in frame && !this.allowed(frame.channel, op)) {
      throw new FrameError('forbidden', `the token does not grant ${op} on ${frame.channel}`);
    }
    if (
      op === 'publish' ||
      (op === 'presence' && (frame.action === 'presence.enter' || frame.action === 'presence.update'))
    ) {
      await this.checkPolicy((frame as { channel: string }).channel, op);
    }
    switch (frame.action) {
      case 'auth':
        return this.swap(frame.token);
      case 'subscribe':
        return this.subscribe(frame.channel, frame.recover);
      case 'unsubscribe':
        this.dropSubscription(frame.channel);
        return {};
      case 'publish':
        return this.publish(frame.channel, json ?? 'null');
      case 'presence.enter':
        return this.presenceEnter(frame.channel, json, frame.ttl_seconds);
      case 'presence.update':
        return this.presenceUpdate(frame.channel, json);
      case 'presence.leave':
        return this.presenceLeave(frame.channel);
      case 'presence.get':
        return this.read(() => this.deps.realtime.reads.presence(this.readInput(frame.channel)));
      case 'presence.stats':
        return this.read(() => this.deps.realtime.reads.presenceStats(this.readInput(frame.channel)));
      case 'history': {
        const { id: _id, action: _action, channel, ...query } = frame;
        return this.read(() => this.deps.realtime.reads.history({ ...this.readInput(channel), query }));
      }
    }
  }

  /**
   * The namespace's policy still allows `op` (the token said so when it was minted, but the Owner
   * may have switched client events or presence off, or deleted the namespace, since): checked on
   * every client event and presence entry, against policies at most policyCacheTtlMs old (5 s),
   * so a change applies to open connections within that (docs/realtime.md "The gateway": 10 s).
   */
  private async checkPolicy(channel: string, op: 'publish' | 'presence'): Promise<void> {
    let policy: Awaited<ReturnType<RealtimeHttp['policies']['get']>>;
    try {
      policy = await this.deps.realtime.policies.get(this.claims!.pid, namespaceOf(channel));
    } catch {
      throw new FrameError('unavailable', 'the namespace policy cannot be read right now');
    }
    if (policy === null) throw new FrameError('forbidden', `the namespace of ${channel} no longer exists`);
    if (op === 'publish' && !policy.clientEvents)
      throw new FrameError('forbidden', `client events are off in the namespace of ${channel}`);
    if (op === 'presence' && !policy.presence)
      throw new FrameError('forbidden', `presence is off in the namespace of ${channel}`);
  }

  private readInput(channel: string) {
    return { productId: this.claims!.pid, environment: this.deps.environment, channel };
  }

  private async read<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ApiError) throw errorOfApi(err);
      throw err;
    }
  }

  private async swap(token: string): Promise<AuthResult> {
    let check: Awaited<ReturnType<typeof checkToken>>;
    try {
      check = await checkToken(
        token,
        this.deps.environment,
        this.deps.realtime.signingKeys,
        this.deps.scheduler.nowMs(),
      );
    } catch {
      throw new FrameError('unavailable', 'the token cannot be checked right now');
    }
    if (this.closing) throw new FrameError('unavailable', 'the connection is closing');
    if ('rejected' in check) {
      this.deps.metrics.authFailed(check.rejected);
      throw new FrameError('invalid', `token refused: ${check.rejected}`);
    }
    const current = this.claims!;
    if (check.claims.pid !== current.pid || check.claims.sub !== current.sub) {
      throw new FrameError('forbidden', 'a swapped token must name the same product and subject');
    }
    this.adopt(check.claims);
    return {
      client: this.deps.id,
      subject: check.claims.sub,
      expires_at: new Date(check.claims.exp * 1000).toISOString(),
    };
  }

  /**
   * After a swap's reply: subscriptions the new token does not grant end with `unsubscribed`
   * (reason `forbidden`), and presence entries on channels it does not grant `presence` are left.
   */
  private endUngranted(): void {
    for (const channel of [...this.subscriptions.keys()]) {
      if (this.allowed(channel, 'subscribe')) continue;
      this.dropSubscription(channel);
      this.send(JSON.stringify({ push: 'unsubscribed', channel, reason: 'forbidden' }), 'unsubscribed');
    }
    for (const channel of [...this.presence.keys()]) {
      if (!this.allowed(channel, 'presence')) this.leavePresence(channel, 'forbidden');
    }
  }

  private async subscribe(channel: string, recover: { offset: number; epoch: string } | undefined) {
    if (this.subscriptions.has(channel)) throw new FrameError('invalid', `already subscribed to ${channel}`);
    const ref = this.ref(channel);
    const sub: Subscription = {
      ref,
      state: startingSubscription<Item>(),
      listener: (m) => this.onHubMessage(sub, m),
    };
    this.subscriptions.set(channel, sub);
    let answer: Awaited<ReturnType<RealtimeHttp['reads']['history']>>;
    try {
      try {
        await this.deps.hub.join(ref, sub.listener);
      } catch (err) {
        this.deps.logger.warn({ err, channel }, 'subscription to the fan-out failed');
        throw new FrameError('unavailable', 'subscriptions are unavailable right now');
      }
      // Subscribed to the live stream first, then read: nothing published in between is missed.
      const query = recover ? { offset: recover.offset, epoch: recover.epoch } : { last_n: 1 };
      answer = await this.read(() => this.deps.realtime.reads.history({ ...this.readInput(channel), query }));
    } catch (err) {
      // Only this frame's subscription is undone (a refused second subscribe never got here).
      if (this.subscriptions.get(channel) === sub) this.dropSubscription(channel);
      throw err;
    }
    const result = subscribeReply(answer as HistoryResult, recover);
    // Live from the channel's top when the read ran (the replayed entries end there).
    this.pendingStart.set(channel, { offset: answer.top_offset, epoch: answer.epoch });
    return result;
  }

  /** After a subscribe's reply: the live stream flows from the reply's position. */
  private start(channel: string): void {
    const sub = this.subscriptions.get(channel);
    if (!sub) return;
    const top = this.pendingStart.get(channel);
    this.pendingStart.delete(channel);
    if (top) this.perform(sub, onStarted(sub.state, top));
  }

  private readonly pendingStart = new Map<string, { offset: number; epoch: string }>();

  private onHubMessage(sub: Subscription, m: Parameters<HubListener>[0]): void {
    if (this.subscriptions.get(sub.ref.channel) !== sub) return;
    const message = m.message;
    if (message.type === 'publication') {
      const { offset, epoch } = message.entry;
      this.perform(sub, onLive(sub.state, { offset, epoch, frame: m.frame, wire: m.wire }));
      return;
    }
    // Ephemeral pushes before the subscribe's reply are not the subscription's yet.
    if (sub.state.phase === 'starting') return;
    if (message.type === 'event') {
      if (message.connectionId !== this.deps.id) this.sendWire(m.wire(), 'event');
    } else if (this.allowed(sub.ref.channel, 'presence')) {
      this.sendWire(m.wire(), 'presence');
    }
  }

  private perform(sub: Subscription, actions: SubscriptionAction<Item>[]): void {
    for (const action of actions) {
      if (this.subscriptions.get(sub.ref.channel) !== sub) return;
      if (action.type === 'push') {
        const { wire, frame } = action.message;
        if (wire) this.sendWire(wire(), 'message');
        else this.send(frame(), 'message');
      } else if (action.type === 'fill')
        this.fill(sub, action.after).catch((err: unknown) => this.failed(err));
      else {
        this.dropSubscription(sub.ref.channel);
        this.send(
          JSON.stringify({ push: 'unsubscribed', channel: sub.ref.channel, reason: 'recover' }),
          'unsubscribed',
        );
      }
    }
  }

  private async fill(sub: Subscription, after: { offset: number; epoch: string }): Promise<void> {
    let answer: { recovered: boolean; entries: Item[] };
    try {
      const read = await this.deps.realtime.reads.history({
        ...this.readInput(sub.ref.channel),
        query: { offset: after.offset, epoch: after.epoch },
      });
      answer = {
        recovered: read.recovered,
        entries: (read.data as HistoryEntry[]).map((e) => entryFrame(sub.ref.channel, e)),
      };
    } catch (err) {
      this.deps.logger.warn({ err, channel: sub.ref.channel }, 'a gap could not be read from history');
      answer = { recovered: false, entries: [] };
    }
    this.perform(sub, onFilled(sub.state, answer));
  }

  /** The fan-out connection came back: each subscription reads what it may have missed. */
  resync(): void {
    for (const sub of [...this.subscriptions.values()]) this.perform(sub, onResync(sub.state));
  }

  private dropSubscription(channel: string): void {
    const sub = this.subscriptions.get(channel);
    if (!sub) return;
    this.subscriptions.delete(channel);
    this.pendingStart.delete(channel);
    this.deps.hub.leave(sub.ref, sub.listener);
  }

  private async publish(channel: string, dataJson: string): Promise<Record<string, never>> {
    if (!this.bucket.take(this.deps.scheduler.nowMs())) {
      throw new FrameError('rate_limited', 'client events are limited to 5 per second (burst 10)');
    }
    const text = encodeFanOutMessage({
      type: 'event',
      channel,
      from: this.claims!.sub,
      connectionId: this.deps.id,
      dataJson,
    });
    try {
      await this.deps.publishEvent(this.ref(channel), text);
    } catch (err) {
      this.bucket.refund();
      this.deps.logger.warn({ err, channel }, 'a client event could not be published');
      throw new FrameError('unavailable', 'client events are unavailable right now');
    }
    return {};
  }

  private async presenceRequest(channel: string, input: Parameters<PresenceCommands['request']>[1]) {
    let result: PresenceResult;
    try {
      result = await this.deps.presence.request(this.ref(channel), input);
    } catch (err) {
      if (err instanceof PresenceUnavailableError) throw new FrameError('unavailable', err.message);
      throw err;
    }
    if (result.error)
      throw new FrameError(PRESENCE_ERROR_REPLY_CODES[result.error.code], result.error.message);
  }

  private async presenceEnter(channel: string, infoJson: string | null, ttlSeconds: number) {
    try {
      await this.presenceRequest(channel, {
        action: 'enter',
        connectionId: this.deps.id,
        identity: this.claims!.sub,
        infoJson,
        ttlSeconds,
        gatewayId: this.deps.gatewayId,
      });
    } catch (err) {
      // Unanswered is not refused: the actor may still apply it, and nobody would keep it alive.
      if (err instanceof FrameError && err.code === 'unavailable') this.sendLeave(channel, 'timeout');
      throw err;
    }
    if (this.closing) {
      // Closed while the actor applied it: the close's leaves did not know of this entry.
      this.sendLeave(channel, 'disconnect');
      return {};
    }
    const previous = this.presence.get(channel);
    if (previous) this.deps.scheduler.clearTimer(previous.keepAlive);
    // Refreshed well before the lifetime ends; the refresh keeps whatever info the member has.
    const periodMs = Math.max(250, (ttlSeconds * 1000) / 3);
    const keepAlive = this.deps.scheduler.setInterval(() => this.keepAlive(channel), periodMs, {
      unref: true,
    });
    this.presence.set(channel, { infoJson, ttlSeconds, keepAlive });
    return {};
  }

  private keepAlive(channel: string): void {
    const entry = this.presence.get(channel);
    if (!entry || this.closing) return;
    this.deps.presence.send(this.ref(channel), {
      action: 'enter',
      connectionId: this.deps.id,
      identity: this.claims!.sub,
      infoJson: entry.infoJson,
      ttlSeconds: entry.ttlSeconds,
      gatewayId: this.deps.gatewayId,
      keepAlive: true,
    });
  }

  private async presenceUpdate(channel: string, infoJson: string | null) {
    await this.presenceRequest(channel, { action: 'update', connectionId: this.deps.id, infoJson });
    const entry = this.presence.get(channel);
    if (entry) entry.infoJson = infoJson;
    return {};
  }

  private async presenceLeave(channel: string) {
    const entry = this.presence.get(channel);
    if (entry) this.deps.scheduler.clearTimer(entry.keepAlive);
    this.presence.delete(channel);
    await this.presenceRequest(channel, { action: 'leave', connectionId: this.deps.id, reason: 'client' });
    return {};
  }

  private leavePresence(channel: string, reason: string): void {
    const entry = this.presence.get(channel);
    if (!entry) return;
    this.deps.scheduler.clearTimer(entry.keepAlive);
    this.presence.delete(channel);
    this.sendLeave(channel, reason);
  }

  /** A leave nobody waits for; harmless when the connection is not in the roster. */
  private sendLeave(channel: string, reason: string): void {
    this.deps.presence.send(this.ref(channel), { action: 'leave', connectionId: this.deps.id, reason });
  }

  private closed(code: number): void {
    this.closing = true;
    const { scheduler } = this.deps;
    scheduler.clearTimer(this.authTimer);
    scheduler.clearTimer(this.expiryTimer);
    scheduler.clearTimer(this.dropTimer);
    for (const channel of [...this.subscriptions.keys()]) this.dropSubscription(channel);
    for (const channel of [...this.presence.keys()]) this.leavePresence(channel, 'disconnect');
    this.deps.tokenSlots.release(this.deps.id);
    this.deps.metrics.closed(this.sentCode ?? code);
    this.deps.onClosed(this);
  }
}
