// The client's subscriptions across connections: subscribe frames with each channel's cursor,
// replies applied through cursor.ts (replay delivered once, in order), pushes routed to their
// subscription, `unsubscribed` pushes (recover: resubscribe at once; forbidden: the end).
import type {
  Cursor,
  EventPush,
  MessagePush,
  PresencePush,
  SubscribeResult,
} from '@lattice/realtime-protocol';
import { type Backoff, backoffDelayMs } from './backoff.ts';
import { advanceCursor, applySubscribeResult } from './cursor.ts';
import type { Emitter } from './emitter.ts';
import { asError, RealtimeError } from './errors.ts';
import type { Outbox } from './outbox.ts';
import { SubscriptionHandle, SubscriptionState } from './subscription.ts';
import type { ClientEvents, SubscribeOptions, Subscription, Timers } from './types.ts';

export interface SubscriptionsDeps {
  outbox: Outbox;
  emitter: Emitter<ClientEvents>;
  timers: Timers;
  backoff: Backoff;
  random: () => number;
  requestTimeoutMs: number;
}

export class Subscriptions {
  readonly #deps: SubscriptionsDeps;
  readonly #byChannel = new Map<string, SubscriptionState>();

  constructor(deps: SubscriptionsDeps) {
    this.#deps = deps;
  }

  /** Resolves on the first subscribe reply, which may come on a later connection (within requestTimeoutMs). */
  subscribe(channel: string, options: SubscribeOptions): Promise<Subscription> {
    if (this.#byChannel.has(channel)) {
      return Promise.reject(new RealtimeError('invalid', `Already subscribed to ${channel}`));
    }
    const { timers, requestTimeoutMs } = this.#deps;
    const sub = new SubscriptionState(channel, options);
    this.#byChannel.set(channel, sub);
    return new Promise<Subscription>((resolve, reject) => {
      const timer = timers.setTimeout(() => {
        if (sub.opening === null) return;
        sub.opening = null;
        this.#drop(sub);
        // A subscribe still in flight may yet succeed on the gateway: undo it (frames are handled in order).
        if (sub.pendingId !== null) this.#sendUnsubscribe(channel);
        reject(new RealtimeError('unavailable', `No subscribe reply within ${requestTimeoutMs} ms`));
      }, requestTimeoutMs);
      sub.opening = { resolve, reject, timer };
      this.#send(sub);
    });
  }

  /** After each auth: every subscription again, from its cursor. */
  resubscribeAll(): void {
    for (const sub of this.#byChannel.values()) this.#send(sub);
  }

  /** The connection ended: nothing is in flight any more; the next connection resubscribes. */
  connectionEnded(): void {
    for (const sub of this.#byChannel.values()) {
      sub.pendingId = null;
      this.#clearRetry(sub);
    }
  }

  close(error: Error): void {
    for (const sub of [...this.#byChannel.values()]) {
      const opening = sub.opening;
      this.#drop(sub);
      opening?.reject(error);
    }
  }

  onPush(frame: Record<string, unknown>): void {
    const channel = typeof frame.channel === 'string' ? frame.channel : '';
    // Pushes for a channel the app unsubscribed from locally are dropped: unsubscribe stops delivery at once.
    const sub = this.#byChannel.get(channel);
    if (!sub) return;
    const { emitter } = this.#deps;
    switch (frame.push) {
      case 'message': {
        const message = frame as unknown as MessagePush;
        const step = advanceCursor(sub.cursor, message);
        sub.cursor = step.cursor;
        if (step.deliver) this.#deliver(sub, message);
        return;
      }
      case 'event':
        this.#call(() => sub.handlers.onEvent?.(frame as unknown as EventPush));
        emitter.emit('event', frame as unknown as EventPush);
        return;
      case 'presence':
        this.#call(() => sub.handlers.onPresence?.(frame as unknown as PresencePush));
        emitter.emit('presence', frame as unknown as PresencePush);
        return;
      case 'unsubscribed':
        if (frame.reason === 'recover') this.#send(sub);
        else this.#end(sub, 'forbidden');
        return;
    }
  }

  #deliver(sub: SubscriptionState, message: MessagePush): void {
    this.#call(() => sub.handlers.onMessage?.(message));
    this.#deps.emitter.emit('message', message);
  }

  /** An app handler that throws must not stop the frame's handling: its error becomes an 'error' event. */
  #call(handler: () => void): void {
    try {
      handler();
    } catch (error) {
      this.#deps.emitter.emit('error', asError(error));
    }
  }

  #send(sub: SubscriptionState): void {
    const { outbox } = this.#deps;
    if (!outbox.ready) return; // the next auth resubscribes
    this.#clearRetry(sub);
    const sent: Cursor | null = sub.cursor ? { offset: sub.cursor.offset, epoch: sub.cursor.epoch } : null;
    const connection = outbox.connection;
    sub.pendingId = outbox.send(
      sent
        ? { action: 'subscribe', channel: sub.channel, recover: sent }
        : { action: 'subscribe', channel: sub.channel },
      {
        resolve: (result) => this.#onSubscribed(sub, sent, result as SubscribeResult),
        reject: (error) => {
          // The connection ended: the next one resubscribes.
          if (outbox.connection === connection) this.#onRefused(sub, error);
        },
      },
    );
  }

  #onSubscribed(sub: SubscriptionState, sent: Cursor | null, result: SubscribeResult): void {
    if (this.#byChannel.get(sub.channel) !== sub) return;
    sub.pendingId = null;
    sub.retryAttempt = 0;
    const outcome = applySubscribeResult(sent, result);
    sub.cursor = outcome.cursor;
    for (const entry of outcome.deliver)
      this.#deliver(sub, { push: 'message', channel: sub.channel, ...entry });
    if (outcome.recovered !== null) {
      this.#deps.emitter.emit('recovery', { channel: sub.channel, recovered: outcome.recovered });
    }
    const opening = sub.opening;
    if (opening) {
      sub.opening = null;
      this.#deps.timers.clearTimeout(opening.timer);
      sub.handle = new SubscriptionHandle(sub, result, (s) => this.#unsubscribe(s));
      opening.resolve(sub.handle);
    }
  }

  #onRefused(sub: SubscriptionState, error: Error): void {
    if (this.#byChannel.get(sub.channel) !== sub) return;
    sub.pendingId = null;
    const opening = sub.opening;
    if (opening) {
      sub.opening = null;
      this.#drop(sub);
      opening.reject(error);
      return;
    }
    const code = error instanceof RealtimeError ? error.code : 'unavailable';
    if (code === 'forbidden' || code === 'invalid') {
      this.#deps.emitter.emit('error', error);
      this.#end(sub, code);
      return;
    }
    // unavailable or rate_limited: retry with backoff. A timed-out subscribe may still land, so undo it first.
    if (!(error instanceof RealtimeError) || !error.fromGateway) this.#sendUnsubscribe(sub.channel);
    const { timers, backoff, random } = this.#deps;
    const delay = backoffDelayMs(backoff, sub.retryAttempt, random);
    sub.retryAttempt += 1;
    sub.retryTimer = timers.setTimeout(() => {
      sub.retryTimer = null;
      if (this.#byChannel.get(sub.channel) === sub && sub.pendingId === null) this.#send(sub);
    }, delay);
  }

  #end(sub: SubscriptionState, reason: 'forbidden' | 'invalid'): void {
    this.#drop(sub);
    this.#deps.emitter.emit('unsubscribed', { push: 'unsubscribed', channel: sub.channel, reason });
  }

  #drop(sub: SubscriptionState): void {
    if (this.#byChannel.get(sub.channel) === sub) this.#byChannel.delete(sub.channel);
    sub.active = false;
    this.#clearRetry(sub);
    if (sub.opening) this.#deps.timers.clearTimeout(sub.opening.timer);
  }

  #clearRetry(sub: SubscriptionState): void {
    if (sub.retryTimer !== null) this.#deps.timers.clearTimeout(sub.retryTimer);
    sub.retryTimer = null;
  }

  async #unsubscribe(sub: SubscriptionState): Promise<void> {
    if (this.#byChannel.get(sub.channel) !== sub) return;
    this.#drop(sub);
    // The local subscription is gone either way; a connection that ends takes the gateway's with it.
    if (this.#deps.outbox.ready) {
      await this.#deps.outbox.request({ action: 'unsubscribe', channel: sub.channel }).catch(() => {});
    }
  }

  #sendUnsubscribe(channel: string): void {
    this.#deps.outbox.send({ action: 'unsubscribe', channel }, { resolve: () => {}, reject: () => {} });
  }
}
