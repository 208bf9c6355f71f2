// A channel subscription as the client keeps it across connections: its handlers, its cursor,
// the subscribe frame in flight and, until the first reply, the app's pending subscribe() call.
// The app gets a SubscriptionHandle, a read-only view plus unsubscribe().
import type { Cursor, HistoryEntry, SubscribeResult } from '@lattice/realtime-protocol';
import type { SubscribeOptions, Subscription } from './types.ts';

export interface Opening {
  resolve(subscription: Subscription): void;
  reject(error: Error): void;
  /** The app's deadline for the first reply. */
  timer: unknown;
}

export class SubscriptionState {
  readonly channel: string;
  readonly handlers: SubscribeOptions;
  /** Null until the first reply, unless the app asked to recover from a cursor. */
  cursor: Cursor | null;
  active = true;
  /** The id of the subscribe frame in flight on the current connection. */
  pendingId: number | null = null;
  /** Set until the first reply settles the app's subscribe(). */
  opening: Opening | null = null;
  /** Consecutive refused or unanswered resubscribes, for their backoff. */
  retryAttempt = 0;
  retryTimer: unknown = null;
  handle: SubscriptionHandle | null = null;

  constructor(channel: string, handlers: SubscribeOptions) {
    this.channel = channel;
    this.handlers = handlers;
    this.cursor = handlers.recover
      ? { offset: handlers.recover.offset, epoch: handlers.recover.epoch }
      : null;
  }
}

export class SubscriptionHandle implements Subscription {
  readonly channel: string;
  readonly epoch: string;
  readonly offset: number;
  readonly recovered: boolean;
  readonly messages: HistoryEntry[];
  readonly #state: SubscriptionState;
  readonly #unsubscribe: (state: SubscriptionState) => Promise<void>;

  constructor(
    state: SubscriptionState,
    first: SubscribeResult,
    unsubscribe: (state: SubscriptionState) => Promise<void>,
  ) {
    this.channel = state.channel;
    this.epoch = first.epoch;
    this.offset = first.offset;
    this.recovered = first.recovered;
    this.messages = first.messages;
    this.#state = state;
    this.#unsubscribe = unsubscribe;
  }

  get cursor(): Cursor {
    const c = this.#state.cursor ?? { offset: this.offset, epoch: this.epoch };
    return { offset: c.offset, epoch: c.epoch };
  }

  get active(): boolean {
    return this.#state.active;
  }

  unsubscribe(): Promise<void> {
    return this.#unsubscribe(this.#state);
  }
}
