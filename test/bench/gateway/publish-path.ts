// The publish-path shapes: fan-out fed the way production feeds it, at a fixed rate of publishes.
//   lattice  HTTP publish through the edge → Kafka → channel actor (offset, history row) → Redis
//            → gateway → subscribers: the runner POSTs `publishesPerS` messages a second, round
//            robin over the shape's channels (a new channel set per round), at most one second's
//            publishes in flight (more is falling behind).
//   bare-ws  the same shape and rate fed straight from Redis by the runner (fan-out.ts, fixed
//            rate): the bare floor the gateway's deliveries per second are compared with.
// Measured over `durationS` after a ramp: deliveries per second at the subscribers, the server's
// CPU, the platform's (lattice: the edge + actors process) and the clients'; publish → push
// latency (lattice). Then every subscriber is checked to have every offset of its channel once,
// in order (verify.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, statusPoster } from '../support/http-load.ts';
import { FanOutRun, ownCpuUs, type Shape, subscribeRound } from './fan-out.ts';
import { createFeed } from './feed.ts';
import { procCpuUs, type Server, tcpRetransSegs, type Workers } from './processes.ts';
import { drainAndVerify } from './verify.ts';

export interface PublishShape extends Shape {
  publishesPerS: number;
}

export interface PublishPathResult {
  deliveriesPerS: number;
  /** publishesPerS × subscribers per channel: what the subscribers get when the path keeps up. */
  targetDeliveriesPerS: number;
  /** Publishes answered 2xx (lattice) or made (bare-ws) a second over the window. */
  publishesPerS: number;
  serverCpuUsPerDelivery: number;
  serverCores: number;
  /** The edge + actors process (lattice; NaN for bare-ws). */
  platformCores: number;
  clientCores: number;
  /** The runner: the HTTP publisher (lattice) or the Redis feed (bare-ws). */
  feedCores: number;
  tcpRetransmits: number;
  fellBehind: boolean;
  /** Publish → push at the subscriber (lattice; NaN for bare-ws). */
  p50Ms: number;
  p99Ms: number;
}

export interface PublishPathSettings {
  durationS: number;
  rampS: number;
  drainTimeoutMs: number;
  windowDeliveries: number;
  fixedDeliveriesPerS: number;
}

/** The lattice arm: HTTP publishes at the shape's rate through the platform. */
async function viaPlatform(
  server: Server,
  workers: Workers,
  shape: PublishShape,
  channels: string[],
  label: string,
  s: PublishPathSettings,
  log: (line: string) => void,
): Promise<PublishPathResult> {
  const hook = server.ready.publish!;
  const platformPid = server.ready.platformPid!;
  const published = channels.map(() => 0);
  const deliveredBefore = workers.delivered();
  const http = statusPoster(hook.publishUrl, hook.headers, 128);
  const inFlight = new Set<Promise<void>>();
  let failure: Error | null = null;
  let sent = 0;
  let answered = 0;
  let fellBehind = false;
  const startedMs = performance.now();
  const measureFromMs = startedMs + s.rampS * 1000;
  const endMs = measureFromMs + s.durationS * 1000;
  let window: {
    atMs: number;
    delivered: number;
    answered: number;
    server: number;
    platform: number;
    clients: number;
    feed: number;
    retrans: number;
  } | null = null;
  const read = (atMs: number) => ({
    atMs,
    delivered: workers.delivered(),
    answered,
    server: server.cpuUs(),
    platform: procCpuUs(platformPid),
    clients: workers.cpuUs(),
    feed: ownCpuUs(),
    retrans: tcpRetransSegs(),
  });
  let lastLogS = 0;
  try {
    for (;;) {
      const now = performance.now();
      if (window === null && now >= measureFromMs) window = read(now);
      if (now >= endMs || failure !== null) break;
      const due = Math.floor(((now - startedMs) / 1000) * shape.publishesPerS);
      while (sent < due) {
        if (inFlight.size >= shape.publishesPerS) {
          fellBehind = true;
          break;
        }
        const i = sent++;
        const c = i % channels.length;
        const body = JSON.stringify({
          channel: channels[c],
          data: { t: performance.timeOrigin + performance.now(), i },
        });
        const p = http.post(body).then(
          (status) => {
            if (status < 200 || status > 299) failure ??= new Error(`publish answered ${status}`);
            else {
              published[c]! += 1;
              answered++;
            }
          },
          (err: Error) => {
            failure ??= err;
          },
        );
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      const second = Math.floor((now - startedMs) / 1000);
      if (second > lastLogS) {
        lastLogS = second;
        log(
          `  ${label.padEnd(30)} ${String(second).padStart(3)} s ${String(answered).padStart(8)} published`,
        );
      }
      await sleep(1);
    }
    const end = read(performance.now());
    await Promise.all(inFlight);
    if (failure) throw failure;
    const w = window!;
    const elapsedS = (end.atMs - w.atMs) / 1000;
    const delivered = end.delivered - w.delivered;
    await drainAndVerify({
      label,
      workers,
      channels,
      published,
      subscribersPerChannel: shape.subscribersPerChannel,
      delivered: () => workers.delivered() - deliveredBefore,
      timeoutMs: s.drainTimeoutMs,
    });
    const sorted = Float64Array.from(await workers.latencies()).sort();
    return {
      deliveriesPerS: delivered / elapsedS,
      targetDeliveriesPerS: shape.publishesPerS * shape.subscribersPerChannel,
      publishesPerS: (end.answered - w.answered) / elapsedS,
      serverCpuUsPerDelivery: (end.server - w.server) / delivered,
      serverCores: (end.server - w.server) / 1e6 / elapsedS,
      platformCores: (end.platform - w.platform) / 1e6 / elapsedS,
      clientCores: (end.clients - w.clients) / 1e6 / elapsedS,
      feedCores: (end.feed - w.feed) / 1e6 / elapsedS,
      tcpRetransmits: end.retrans - w.retrans,
      fellBehind,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
    };
  } finally {
    http.close();
  }
}

/** One server's publish-path measurement: a fresh connection set, closed after. */
export async function publishPathRound(opts: {
  server: Server;
  workers: Workers;
  shape: PublishShape;
  round: number;
  label: string;
  settings: PublishPathSettings;
  redisUrl: string;
  epoch: string;
  log: (line: string) => void;
}): Promise<{ connectMs: number; result: PublishPathResult }> {
  const { server, workers, shape, round, label, settings, log } = opts;
  const viaHttp = server.name === 'lattice';
  const { channels, connectMs } = await subscribeRound(server, workers, shape, round, label, viaHttp, log);
  try {
    if (viaHttp) {
      return {
        connectMs,
        result: await viaPlatform(server, workers, shape, channels, label, settings, log),
      };
    }
    const feed = createFeed(opts.redisUrl, server.ready.feed, opts.epoch);
    try {
      const target = shape.publishesPerS * shape.subscribersPerChannel;
      const run = new FanOutRun({ server, workers, feed, channels, shape, settings, log });
      const p = await run.phase(`${label} fixed`, { kind: 'fixed', deliveriesPerS: target });
      return {
        connectMs,
        result: {
          deliveriesPerS: p.deliveriesPerS,
          targetDeliveriesPerS: target,
          publishesPerS: p.deliveriesPerS / shape.subscribersPerChannel,
          serverCpuUsPerDelivery: p.serverCpuUsPerDelivery,
          serverCores: p.serverCores,
          platformCores: Number.NaN,
          clientCores: p.clientCores,
          feedCores: p.feedCores,
          tcpRetransmits: p.tcpRetransmits,
          fellBehind: p.fellBehind ?? false,
          p50Ms: Number.NaN,
          p99Ms: Number.NaN,
        },
      };
    } finally {
      await feed.close();
    }
  } finally {
    await workers.close();
  }
}
