// Frames out, replies in: ids, deadlines, and the app requests that wait for a connection.
//
// Requests made while disconnected wait for the next connection; a request rejects with
// `unavailable` when no reply came within requestTimeoutMs of the call (waiting included), or
// when the connection it was sent on ends before the reply: it may or may not have been applied,
// and only the app knows whether repeating it is safe (a client event is not idempotent).
import type { ClientFrame } from '@lattice/realtime-protocol';
import { asError, RealtimeError } from './errors.ts';
import { RequestTable, type Waiter } from './requests.ts';
import type { Timers, WebSocketLike } from './types.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A client frame before the outbox gives it its id. */
export type FrameBody = DistributiveOmit<ClientFrame, 'id'>;

interface Queued {
  body: FrameBody;
  deadlineMs: number;
  timer: unknown;
  waiter: Waiter;
}

export class Outbox {
  readonly #timers: Timers;
  readonly #requestTimeoutMs: number;
  readonly #requests = new RequestTable();
  #queue: Queued[] = [];
  /** The authenticated socket; null while there is none. */
  #socket: WebSocketLike | null = null;
  #connection = 0;
  #closed = false;

  constructor(timers: Timers, requestTimeoutMs: number) {
    this.#timers = timers;
    this.#requestTimeoutMs = requestTimeoutMs;
  }

  /** Whether requests go out now (an authenticated connection). */
  get ready(): boolean {
    return this.#socket !== null;
  }

  /**
   * Counts connections: a callback compares the number it saw when sending with the current one,
   * so that a failure caused by the connection ending is not mistaken for a refusal.
   */
  get connection(): number {
    return this.#connection;
  }

  /** The connection authenticated: requests go out on `socket` from now on (flush() sends those waiting). */
  open(socket: WebSocketLike): void {
    this.#socket = socket;
    this.#connection += 1;
  }

  /** Sends the requests that waited for the connection, oldest first, each within what is left of its deadline. */
  flush(): void {
    const socket = this.#socket;
    if (!socket) return;
    for (const q of this.#queue.splice(0)) {
      this.#timers.clearTimeout(q.timer);
      this.sendOn(socket, q.body, Math.max(q.deadlineMs - this.#timers.now(), 0), q.waiter);
    }
  }

  /** The connection ended: whatever was in flight on it rejects; queued requests keep waiting. */
  connectionEnded(code: number): void {
    this.#socket = null;
    this.#connection += 1;
    this.#requests.rejectAll(
      new RealtimeError('unavailable', `The connection closed (${code}) before the reply`),
    );
  }

  /** Rejects everything, for good. */
  close(error: Error): void {
    this.#closed = true;
    this.#socket = null;
    for (const q of this.#queue.splice(0)) {
      this.#timers.clearTimeout(q.timer);
      q.waiter.reject(error);
    }
    this.#requests.rejectAll(error);
  }

  /** Settles the request a reply answers (a late one, after its timeout, is ignored). */
  settle(reply: { id?: unknown; result?: unknown; error?: unknown }): void {
    this.#requests.settle(reply);
  }

  /** An app request: sent now when connected, else queued for the next connection. */
  request(body: FrameBody): Promise<unknown> {
    if (this.#closed) return Promise.reject(new RealtimeError('unavailable', 'The client is closed'));
    return new Promise((resolve, reject) => {
      if (this.send(body, { resolve, reject }) !== null) return;
      const queued: Queued = {
        body,
        deadlineMs: this.#timers.now() + this.#requestTimeoutMs,
        timer: null,
        waiter: { resolve, reject },
      };
      queued.timer = this.#timers.setTimeout(() => {
        this.#queue = this.#queue.filter((q) => q !== queued);
        reject(new RealtimeError('unavailable', `Not connected within ${this.#requestTimeoutMs} ms`));
      }, this.#requestTimeoutMs);
      this.#queue.push(queued);
    });
  }

  /** Sends on the current connection now, or returns null when there is none (nothing is queued). */
  send(body: FrameBody, waiter: Waiter): number | null {
    return this.#socket ? this.sendOn(this.#socket, body, this.#requestTimeoutMs, waiter) : null;
  }

  /** Sends a frame with the next id on `socket`; the waiter gets its reply, or `unavailable` after timeoutMs. */
  sendOn(socket: WebSocketLike, body: FrameBody, timeoutMs: number, waiter: Waiter): number {
    const id = this.#requests.nextId();
    const timer = this.#timers.setTimeout(() => {
      this.#requests.reject(id, new RealtimeError('unavailable', `No reply within ${timeoutMs} ms`));
    }, timeoutMs);
    this.#requests.track(id, {
      resolve: (result) => {
        this.#timers.clearTimeout(timer);
        waiter.resolve(result);
      },
      reject: (error) => {
        this.#timers.clearTimeout(timer);
        waiter.reject(error);
      },
    });
    try {
      socket.send(JSON.stringify({ id, ...body }));
    } catch (error) {
      this.#requests.reject(id, new RealtimeError('unavailable', `Send failed: ${asError(error).message}`));
    }
    return id;
  }
}
