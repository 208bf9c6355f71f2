// Test support for the client's unit tests (not exported by index.ts): a scripted in-memory
// WebSocket that records the frames the client sends and lets a test answer, push and close as
// the gateway would, and manual timers whose clock only moves when the test says so.
import type { Timers, WebSocketConstructor, WebSocketLike } from './types.ts';

export class FakeWebSocket implements WebSocketLike {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly url: string;
  readonly sent: string[] = [];
  readonly closeCalls: { code: number | undefined; reason: string | undefined }[] = [];
  #open = false;
  #closed = false;

  constructor(url: string) {
    this.url = url;
  }

  send(data: string): void {
    if (!this.#open) throw new Error('InvalidStateError: not open');
    this.sent.push(data);
  }

  /** Like a browser: the close event follows the call (a tick later); 1006 when it was not open yet. */
  close(code?: number, reason?: string): void {
    this.closeCalls.push({ code, reason });
    if (this.#closed) return;
    const wasOpen = this.#open;
    this.#open = false;
    this.#closed = true;
    const event = wasOpen ? { code: code ?? 1005, reason: reason ?? '' } : { code: 1006, reason: '' };
    queueMicrotask(() => this.onclose?.(event));
  }

  // The gateway's side

  open(): void {
    this.#open = true;
    this.onopen?.({});
  }

  receive(frame: unknown): void {
    this.onmessage?.({ data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
  }

  serverClose(code: number, reason = ''): void {
    this.#open = false;
    this.#closed = true;
    this.onclose?.({ code, reason });
  }

  /** The frames sent so far, parsed. */
  frames(): Record<string, unknown>[] {
    return this.sent.map((s) => JSON.parse(s) as Record<string, unknown>);
  }

  lastFrame(): Record<string, unknown> {
    const frames = this.frames();
    const last = frames[frames.length - 1];
    if (!last) throw new Error('no frame sent');
    return last;
  }
}

/** A WebSocket constructor whose instances a test can reach. */
export function fakeWebSockets(): { WebSocket: WebSocketConstructor; sockets: FakeWebSocket[] } {
  const sockets: FakeWebSocket[] = [];
  class Recorded extends FakeWebSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
    }
  }
  return { WebSocket: Recorded, sockets };
}

/** Lets pending promise callbacks run (the client awaits its token provider). */
export function settle(): Promise<void> {
  return new Promise((resolve) => globalThis.setTimeout(resolve, 0));
}

export class ManualTimers implements Timers {
  nowMs: number;
  #nextId = 1;
  readonly #tasks = new Map<number, { at: number; callback: () => void }>();

  constructor(startMs = Date.parse('2026-03-01T12:00:00.000Z')) {
    this.nowMs = startMs;
  }

  setTimeout = (callback: () => void, ms: number): unknown => {
    const id = this.#nextId++;
    this.#tasks.set(id, { at: this.nowMs + Math.max(0, ms), callback });
    return id;
  };

  clearTimeout = (handle: unknown): void => {
    this.#tasks.delete(handle as number);
  };

  now = (): number => this.nowMs;

  /** Delays from now of the timers still pending, soonest first. */
  pending(): number[] {
    return [...this.#tasks.values()].map((t) => t.at - this.nowMs).sort((a, b) => a - b);
  }

  /** Moves the clock by `ms`, running each timer due on the way (and what its promises do). */
  async advance(ms: number): Promise<void> {
    const target = this.nowMs + ms;
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | null = null;
      for (const entry of this.#tasks)
        if (entry[1].at <= target && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.#tasks.delete(next[0]);
      this.nowMs = next[1].at;
      next[1].callback();
      await settle();
    }
    this.nowMs = target;
    await settle();
  }
}
