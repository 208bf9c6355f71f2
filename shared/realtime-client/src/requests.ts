// Requests in flight, matched to their replies by id. Ids are increasing integers for the
// client's lifetime (never reused across connections), so a late reply from an abandoned
// connection or after a timeout can never settle another request.
import { errorOfFrame } from './errors.ts';

export interface Waiter {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export type ReplySettle = 'settled' | 'unknown';

export class RequestTable {
  #lastId = 0;
  readonly #waiting = new Map<number, Waiter>();

  /** The id for the next frame. */
  nextId(): number {
    this.#lastId += 1;
    return this.#lastId;
  }

  /**
   * Calls `waiter` when the reply to the frame with `id` comes. Callbacks, not a promise: the
   * client applies a reply (a subscribe's cursor) before it handles the next frame, which a
   * promise's later microtask would not guarantee.
   */
  track(id: number, waiter: Waiter): void {
    this.#waiting.set(id, waiter);
  }

  /** A promise of the reply to the frame with `id`. */
  wait(id: number): Promise<unknown> {
    return new Promise((resolve, reject) => this.track(id, { resolve, reject }));
  }

  /** Settles the request a reply answers: its result, or a RealtimeError from its error. */
  settle(reply: { id?: unknown; result?: unknown; error?: unknown }): ReplySettle {
    if (typeof reply.id !== 'number') return 'unknown';
    const waiter = this.#waiting.get(reply.id);
    if (!waiter) return 'unknown';
    this.#waiting.delete(reply.id);
    if (reply.error !== undefined) waiter.reject(errorOfFrame(reply.error));
    else waiter.resolve(reply.result);
    return 'settled';
  }

  /** Rejects one request (a timeout); false when it was already settled. */
  reject(id: number, error: Error): boolean {
    const waiter = this.#waiting.get(id);
    if (!waiter) return false;
    this.#waiting.delete(id);
    waiter.reject(error);
    return true;
  }

  /** Rejects every request in flight (the connection they were sent on ended). */
  rejectAll(error: Error): void {
    const waiters = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const w of waiters) w.reject(error);
  }

  get size(): number {
    return this.#waiting.size;
  }
}
