// A protocol-level test client: raw frames in and out over a real WebSocket (the `ws` package),
// every received frame kept in order, replies matched by id, pushes waited for by predicate.
import { WebSocket } from 'ws';

export type Frame = Record<string, unknown>;

/** The error code of a reply, if it is an error. */
export const errorCode = (reply: Frame): unknown => (reply.error as Frame | undefined)?.code;

export interface Closed {
  code: number;
  reason: string;
}

export class TestSocket {
  readonly frames: Frame[] = [];
  readonly closed: Promise<Closed>;
  private readonly waiters = new Set<() => void>();
  private nextId = 1;
  readonly ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.wake();
      });
    });
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      this.wake();
    });
    ws.on('error', () => undefined);
  }

  static open(url: string, options: { origin?: string; protocols?: string[] } = {}): Promise<TestSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(
        url,
        options.protocols ?? [],
        options.origin ? { origin: options.origin } : {},
      );
      const socket = new TestSocket(ws);
      ws.once('open', () => resolve(socket));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  /** Opens and authenticates; resolves with the auth reply. */
  static async authed(url: string, token: string): Promise<{ socket: TestSocket; reply: Frame }> {
    const socket = await TestSocket.open(url);
    const reply = await socket.request({ action: 'auth', token });
    if (!('result' in reply)) throw new Error(`auth refused: ${JSON.stringify(reply)}`);
    return { socket, reply };
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  send(frame: Frame | string): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Sends the frame with a fresh numeric id and waits for its reply. */
  async request(frame: Frame, timeoutMs = 15_000): Promise<Frame> {
    const id = this.nextId++;
    this.send({ id, ...frame });
    return this.waitFor((f) => f.id === id && !('push' in f), timeoutMs, `reply to ${JSON.stringify(frame)}`);
  }

  /** Sends frames with ids and waits for all replies, in order. */
  async requestAll(frames: Frame[]): Promise<Frame[]> {
    return Promise.all(frames.map((f) => this.request(f)));
  }

  /** The first received frame (from `from` on) that matches, waiting for it. */
  waitFor(match: (f: Frame) => boolean, timeoutMs = 15_000, what = 'a frame', from = 0): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.frames.slice(from).find(match);
        if (found) {
          done();
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.frames.slice(-5))}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Waits until `count` frames match. */
  async waitForCount(match: (f: Frame) => boolean, count: number, timeoutMs = 30_000): Promise<Frame[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`timed out: ${found.length} of ${count} frames`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 200);
        const w = () => {
          clearTimeout(t);
          this.waiters.delete(w);
          resolve();
        };
        this.waiters.add(w);
      });
    }
  }

  pushes(kind: string, channel?: string): Frame[] {
    return this.frames.filter((f) => f.push === kind && (channel === undefined || f.channel === channel));
  }

  close(): void {
    this.ws.close();
  }
}
