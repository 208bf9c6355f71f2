// The two Lattice-only phases, run for a variant that offers them (lattice, once wired):
//   latency  publish over the platform's public HTTP API at a fixed 1 000 messages a second to
//            100 channels with 10 subscribers each (1 000 connections): from just before the
//            HTTP request (`data.t`, epoch ms) to the push at the subscriber. Needs the variant's
//            `publish` hook (edge + actors + gateway). Goal p50 < 15 ms, p99 < 50 ms.
//   memory   10 000 idle connections, each authenticated with one subscription, read two ways
//            after a 2 s settle: the RSS delta as the OS sees it (no collection forced), and the
//            live heap + external after a full collection; the difference is split into garbage
//            a collection would free, heap V8 holds unused, and memory outside V8's heap.
//            Goal < 20 KiB, judged on the RSS delta. Runs against any variant's server.
import { setTimeout as sleep } from 'node:timers/promises';
import { fanOutChannelPattern } from '@lattice/redis';
import { Redis } from 'ioredis';
import { percentile, statusPoster } from '../support/http-load.ts';
import type { MemorySample } from './messages.ts';
import { type Server, tcpRetransSegs, type Workers } from './processes.ts';

export interface LatencyResult {
  messages: number;
  subscribers: number;
  ratePerS: number;
  deliveries: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** TCP segments the machine retransmitted during the phase (stalls of 200 ms or more). */
  tcpRetransmits: number;
  /**
   * The same messages seen on Redis pub/sub, before the WebSocket server: publish → fan-out
   * (edge, Kafka, channel actor, PostgreSQL, Redis); the rest of the latency is the server's
   * and its clients'.
   */
  atRedisP50Ms: number;
  atRedisP99Ms: number;
}

export interface MemoryResult {
  connections: number;
  connectMs: number;
  /** The server's readings before the connections and after them and the settle. */
  before: { raw: MemorySample; collected: MemorySample };
  after: { raw: MemorySample; collected: MemorySample };
}

export async function latencyPhase(
  server: Server,
  workers: Workers,
  redisUrl: string,
  opts: {
    channelPrefix: string;
    channels: number;
    subscribersPerChannel: number;
    ratePerS: number;
    durationS: number;
  },
  log: (line: string) => void,
): Promise<LatencyResult> {
  const hook = server.ready.publish!;
  const channels = Array.from({ length: opts.channels }, (_, i) => `${opts.channelPrefix}c${i}`);
  await workers.connect(
    server.ready.url,
    server.ready.client,
    channels.map((channel) => ({ channel, clients: opts.subscribersPerChannel })),
    true,
  );
  // A tap on the fan-out the server receives: where the time goes before the server.
  const atRedis: number[] = [];
  const feed = server.ready.feed;
  const tap = feed.kind === 'lattice-fanout' ? new Redis(redisUrl, { lazyConnect: false }) : null;
  if (tap && feed.kind === 'lattice-fanout') {
    tap.on('pmessage', (_pattern: string, _channel: string, text: string) => {
      const at = text.indexOf('"t":');
      if (at >= 0)
        atRedis.push(performance.timeOrigin + performance.now() - Number.parseFloat(text.slice(at + 4)));
    });
    await tap.psubscribe(
      fanOutChannelPattern(feed.redisKeyPrefix, feed.productId, 'production', opts.channelPrefix),
    );
  }
  const http = statusPoster(hook.publishUrl, hook.headers, 64);
  const total = opts.ratePerS * opts.durationS;
  const deliveredBefore = workers.delivered();
  const retransBefore = tcpRetransSegs();
  const startedMs = performance.now();
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  let logged = 0;
  let failure: Error | null = null;
  try {
    while (sent < total && failure === null) {
      const due = Math.min(total, Math.floor(((performance.now() - startedMs) / 1000) * opts.ratePerS));
      while (sent < due) {
        const i = sent++;
        const body = JSON.stringify({
          channel: channels[i % channels.length],
          data: { t: performance.timeOrigin + performance.now(), i },
        });
        const p = http.post(body).then(
          (status) => {
            if (status < 200 || status > 299) failure ??= new Error(`publish answered ${status}`);
          },
          (err: Error) => {
            failure ??= err;
          },
        );
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      if (sent - logged >= opts.ratePerS) {
        logged = sent;
        log(`  latency: ${sent}/${total} published`);
      }
      await sleep(1);
    }
    await Promise.all(inFlight);
    if (failure) throw failure;
    const expected = total * opts.subscribersPerChannel;
    const deadline = performance.now() + 30_000;
    while (workers.delivered() - deliveredBefore < expected && performance.now() < deadline) await sleep(20);
    await sleep(120);
    const got = workers.delivered() - deliveredBefore;
    if (got !== expected) throw new Error(`latency: ${got} of ${expected} deliveries arrived`);
    const sorted = Float64Array.from(await workers.latencies()).sort();
    const tapped = Float64Array.from(atRedis).sort();
    return {
      atRedisP50Ms: percentile(tapped, 50),
      atRedisP99Ms: percentile(tapped, 99),
      messages: total,
      subscribers: opts.channels * opts.subscribersPerChannel,
      ratePerS: opts.ratePerS,
      deliveries: sorted.length,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted[sorted.length - 1] ?? Number.NaN,
      tcpRetransmits: tcpRetransSegs() - retransBefore,
    };
  } finally {
    tap?.disconnect();
    http.close();
    await workers.close();
  }
}

export async function memoryPhase(
  server: Server,
  workers: Workers,
  opts: { channelPrefix: string; connections: number; channels: number },
  log: (line: string) => void,
): Promise<MemoryResult> {
  // The fresh server settles as long before its first reading as the connections do before the second.
  await sleep(2000);
  const before = await server.memory();
  const perChannel = Math.ceil(opts.connections / opts.channels);
  const assignments = Array.from({ length: opts.channels }, (_, i) => ({
    channel: `${opts.channelPrefix}c${i}`,
    clients: Math.min(perChannel, opts.connections - i * perChannel),
  })).filter((a) => a.clients > 0);
  try {
    const connected = await workers.connect(server.ready.url, server.ready.client, assignments, false);
    log(`  memory: ${connected.connections} connections in ${(connected.ms / 1000).toFixed(1)} s`);
    // Let connection set-up garbage and timers settle before the second reading.
    await sleep(2000);
    const after = await server.memory();
    return {
      connections: connected.connections,
      connectMs: connected.ms,
      before: { raw: before.raw, collected: before.collected },
      after: { raw: after.raw, collected: after.collected },
    };
  } finally {
    await workers.close();
  }
}
