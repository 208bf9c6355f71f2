// One subscriber's view of its channel in the latency benchmark: every delivery counted and its
// sequence number checked (each message once, in order), and the latency of each delivery of a
// measured-phase message kept. A push is read from its bytes: the `data` object the publisher
// sent (`{"s","t","p","a","text"}`) is the only object after `"data":`, and only it is parsed.
//
// Order: publishes of a channel overlap (the publisher does not wait for an answer before the next
// one), and two publishes in flight together may take either order. What must hold is the order of
// acceptance: a message answered 2xx before another was sent comes first. Each message names the
// channel's highest sequence number answered before it was sent (`a`); a message delivered before
// the one it names is out of order.
import type { DeliveryCheck, Expected } from './messages.ts';

const PUSH_MESSAGE = Buffer.from('"push":"message"');
const DATA = Buffer.from('"data":');
const CLOSE_BRACE = 0x7d;

/** `{s, t, p, a}` of a message push, or null for any other frame. */
export function readPush(frame: Buffer): { s: number; t: number; p: number; a: number } | null {
  if (frame.indexOf(PUSH_MESSAGE) < 0) return null;
  const at = frame.indexOf(DATA);
  if (at < 0) return null;
  const end = frame.indexOf(CLOSE_BRACE, at);
  if (end < 0) return null;
  const data = JSON.parse(frame.toString('utf8', at + DATA.length, end + 1)) as {
    s?: unknown;
    t?: unknown;
    p?: unknown;
    a?: unknown;
  };
  if (typeof data.s !== 'number' || typeof data.t !== 'number') return null;
  return {
    s: data.s,
    t: data.t,
    p: typeof data.p === 'number' ? data.p : 0,
    a: typeof data.a === 'number' ? data.a : 0,
  };
}

/** A growable array of samples, cheap to append to at tens of thousands a second. */
export class Samples {
  private values = new Float64Array(1 << 14);
  length = 0;
  push(v: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = v;
  }
  take(): Float64Array {
    const out = this.values.slice(0, this.length);
    this.length = 0;
    return out;
  }
}

export class SubscriberState {
  /** Times each sequence number was received (index = sequence number). */
  private seen = new Uint8Array(256);
  deliveries = 0;
  duplicated = 0;
  outOfOrder = 0;

  readonly channel: string;

  constructor(channel: string) {
    this.channel = channel;
  }

  /** Counts a delivery of sequence number `s`, sent after `after` had been answered (0: none). */
  receive(s: number, after: number): void {
    this.deliveries++;
    if (s >= this.seen.length) {
      const grown = new Uint8Array(Math.max(s + 1, this.seen.length * 2));
      grown.set(this.seen);
      this.seen = grown;
    }
    const before = this.seen[s]!;
    if (before < 255) this.seen[s] = before + 1;
    if (before > 0) this.duplicated++;
    else if (after > 0 && (this.seen[after] ?? 0) === 0) this.outOfOrder++;
  }

  /** Lost and unexpected messages against what was published on the channel. */
  check(expected: Expected[string] | undefined): DeliveryCheck {
    const last = expected?.last ?? 0;
    const failed = new Set(expected?.failed ?? []);
    let lost = 0;
    let unexpected = 0;
    for (let s = 1; s < Math.max(last + 1, this.seen.length); s++) {
      const got = this.seen[s] ?? 0;
      const accepted = s <= last && !failed.has(s);
      if (accepted && got === 0) lost++;
      if (!accepted && got > 0) unexpected += got;
    }
    return {
      deliveries: this.deliveries,
      lost,
      duplicated: this.duplicated,
      outOfOrder: this.outOfOrder,
      unexpected,
    };
  }
}

export function sumChecks(checks: DeliveryCheck[]): DeliveryCheck {
  const total: DeliveryCheck = { deliveries: 0, lost: 0, duplicated: 0, outOfOrder: 0, unexpected: 0 };
  for (const c of checks) {
    total.deliveries += c.deliveries;
    total.lost += c.lost;
    total.duplicated += c.duplicated;
    total.outOfOrder += c.outOfOrder;
    total.unexpected += c.unexpected;
  }
  return total;
}
