// The soak's clients, written as a careful integrator writes them:
//   publishers  one per channel, publishing `{seq}` 1, 2, 3, … in order through the public edges;
//               each message is retried under the same Idempotency-Key (on the next edge, after
//               Retry-After or a short pause) until it is answered 202, so a refusal or a
//               dropped connection never skips a message.
//   sender      one, sending emails through the edges the same way.
//   subscribers real realtime clients (@lattice/realtime-client) on the gateways, each subscribed
//               to every channel, reconnecting and recovering by themselves.
// Every answer is kept: 202s, refusals by status and code, transport failures, hangs.
import { sleep } from '@lattice/core';
import { connect, type RealtimeClient } from '@lattice/realtime-client';
import { type LoadTarget, type Outcome, postOutcome, REQUEST_BOUND_MS } from '../support/post-outcome.ts';

export interface Item {
  seq: number;
  /** The accepted answer's id; null while not (yet) accepted. */
  id: string | null;
  acceptedAtMs: number | null;
  attempts: Outcome[];
}

export interface Stream {
  items: Item[];
  /** 202s so far (for the throughput samples). */
  accepted: number;
}

export interface Received {
  offset: number;
  epoch: string;
  seq: number;
}

export interface Subscriber {
  name: string;
  /** What the client delivered per channel, in order. */
  received: Map<string, Received[]>;
  /** Recovering subscribes the gateway answered `recovered: false`. */
  unrecovered: number;
  /** `disconnected` events: connections lost and reconnect attempts failed. */
  disconnects: number;
  client: RealtimeClient;
}

export interface Traffic {
  publishes: Map<string, Stream>;
  sends: Stream;
  subscribers: Subscriber[];
  /** Messages the subscribers' clients delivered so far. */
  delivered(): number;
  /** Stops the publishers and the sender after their message in flight (answered or not). */
  stop(): Promise<void>;
  /** Closes the subscribers. */
  close(): Promise<void>;
}

export interface TrafficOptions {
  run: string;
  productId: string;
  channels: string[];
  /** The edges' base URLs; requests rotate over them. */
  edges: string[];
  gateways: string[];
  realtimeKey: string;
  mailKey: string;
  domain: string;
  publishGapMs: number;
  sendGapMs: number;
  subscribers: number;
}

/** Answers worth a retry of the same message: unavailable, limited, a transport failure, a key in use. */
function retryable(o: Outcome): boolean {
  return o.status === 0 || o.status === 503 || o.status === 429 || o.code === 'idempotency_key_in_use';
}

/**
 * Sends item after item, each until accepted. A non-retryable refusal (a 4xx the soak's requests
 * must never get, a 500) is kept and the item given up, so the report shows it.
 */
async function produce(
  stream: Stream,
  stopped: () => boolean,
  gapMs: number,
  attempt: (seq: number, attemptNo: number) => Promise<Outcome>,
): Promise<void> {
  for (let seq = 1; !stopped(); seq++) {
    const item: Item = { seq, id: null, acceptedAtMs: null, attempts: [] };
    stream.items.push(item);
    for (let n = 0; ; n++) {
      const o = await attempt(seq, n);
      item.attempts.push(o);
      if (o.status === 202 && o.id) {
        item.id = o.id;
        item.acceptedAtMs = o.answeredAtMs;
        stream.accepted++;
        break;
      }
      if (!retryable(o) || stopped()) break;
      await sleep(
        o.status === 503 || o.status === 429 ? Math.min(Number(o.retryAfter ?? 1) * 1000, 500) : 100,
      );
    }
    await sleep(gapMs);
  }
}

async function tokenFrom(opts: TrafficOptions, subject: string): Promise<string> {
  const deadline = Date.now() + REQUEST_BOUND_MS;
  for (let n = 0; ; n++) {
    const edge = opts.edges[n % opts.edges.length]!;
    try {
      const res = await fetch(`${edge}/${opts.productId}/realtime/tokens/issue`, {
        method: 'POST',
        headers: { authorization: `Bearer ${opts.realtimeKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          subject,
          channels: opts.channels.map((name) => ({ name, ops: ['subscribe'] })),
          ttlSeconds: 3600,
        }),
        signal: AbortSignal.timeout(5_000),
      });
      if (res.status === 201 || res.status === 200) return ((await res.json()) as { token: string }).token;
    } catch {
      // the edge is down: the next one
    }
    if (Date.now() > deadline) throw new Error(`no edge issued a token for ${subject}`);
    await sleep(100);
  }
}

async function subscriber(opts: TrafficOptions, index: number): Promise<Subscriber> {
  const name = `reader-${index + 1}`;
  const client = connect({
    url: opts.gateways[index % opts.gateways.length]!,
    getToken: () => tokenFrom(opts, name),
    backoff: { initialMs: 100, maxMs: 2_000 },
  });
  const sub: Subscriber = { name, received: new Map(), unrecovered: 0, disconnects: 0, client };
  client.on('recovery', ({ recovered }) => {
    if (!recovered) sub.unrecovered++;
  });
  client.on('disconnected', () => sub.disconnects++);
  for (const channel of opts.channels) {
    const got: Received[] = [];
    sub.received.set(channel, got);
    await client.subscribe(channel, {
      onMessage: (m) => got.push({ offset: m.offset, epoch: m.epoch, seq: (m.data as { seq: number }).seq }),
    });
  }
  return sub;
}

export async function startTraffic(opts: TrafficOptions): Promise<Traffic> {
  const subscribers: Subscriber[] = [];
  for (let i = 0; i < opts.subscribers; i++) subscribers.push(await subscriber(opts, i));
  let stopped = false;
  const isStopped = () => stopped;
  const target = (path: string, key: string, n: number): LoadTarget => ({
    url: `${opts.edges[n % opts.edges.length]}/${opts.productId}${path}`,
    token: key,
  });
  const publishes = new Map<string, Stream>(opts.channels.map((c) => [c, { items: [], accepted: 0 }]));
  const sends: Stream = { items: [], accepted: 0 };
  const clients = [
    ...opts.channels.map((channel, c) =>
      produce(publishes.get(channel)!, isStopped, opts.publishGapMs, (seq, n) =>
        postOutcome(
          target('/realtime/messages', opts.realtimeKey, c + seq + n),
          { channel, data: { seq } },
          seq,
          {
            'idempotency-key': `${opts.run}-${channel}-${seq}`,
          },
        ),
      ),
    ),
    produce(sends, isStopped, opts.sendGapMs, (seq, n) =>
      postOutcome(
        target('/mail/emails', opts.mailKey, seq + n),
        {
          from: `soak@${opts.domain}`,
          to: `reader-${seq}@example.net`,
          subject: `Soak ${seq}`,
          html: `<p>Soak message ${seq}</p>`,
        },
        seq,
        { 'idempotency-key': `${opts.run}-email-${seq}` },
      ),
    ),
  ];
  return {
    publishes,
    sends,
    subscribers,
    delivered: () =>
      subscribers.reduce((n, s) => n + [...s.received.values()].reduce((m, r) => m + r.length, 0), 0),
    async stop() {
      stopped = true;
      await Promise.all(clients);
    },
    async close() {
      await Promise.all(subscribers.map((s) => s.client.close()));
    },
  };
}
