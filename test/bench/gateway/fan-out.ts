// The fan-out phases of one server and shape, with one set of subscriber connections:
//   saturation  publish as fast as deliveries keep up: at most `windowDeliveries` deliveries
//               outstanding (published × subscribers per channel − counted by the clients), so
//               nothing queues without bound in the server, Redis's pub/sub buffer or the
//               sockets; deliveries per second over `durationS` after a one-second ramp.
//   fixed       a fixed deliveries-per-second rate below every server's cap: the server
//               process's CPU time per delivery (/proc), which still separates servers whose
//               saturation figures all meet the clients' cap.
// After each phase: wait until every delivery is counted, then check every subscriber saw every
// offset of its channel once and in order (verify.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Feed } from './feed.ts';
import { type Server, tcpRetransSegs, type Workers } from './processes.ts';
import { drainAndVerify } from './verify.ts';

export const ownCpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

export interface Shape {
  id: string;
  channels: number;
  subscribersPerChannel: number;
}

export interface PhaseResult {
  deliveriesPerS: number;
  deliveries: number;
  /** Server process CPU time per delivery over the measured window. */
  serverCpuUsPerDelivery: number;
  /** Server and load-client CPU time over the window, in cores (1 = one core busy). */
  serverCores: number;
  clientCores: number;
  /** The runner's process (the feed) and the Redis server, in cores over the window. */
  feedCores: number;
  redisCores: number;
  /** TCP segments the machine retransmitted over the window (processes.ts tcpRetransSegs). */
  tcpRetransmits: number;
  perSecond: number[];
  /** Fixed rate only: the rate asked for, and whether the server fell behind it. */
  targetPerS?: number;
  fellBehind?: boolean;
}

export interface FanOutSettings {
  durationS: number;
  rampS: number;
  windowDeliveries: number;
  fixedDeliveriesPerS: number;
  drainTimeoutMs: number;
}

/**
 * One round's subscriber connections of `shape` on `server`: fresh channels (named for the round
 * and the shape, under the server's channel prefix), `subscribersPerChannel` connections to each,
 * measuring publish → push latency when `measureLatency`; the time they took is logged under `label`.
 */
export async function subscribeRound(
  server: Server,
  workers: Workers,
  shape: Shape,
  round: number,
  label: string,
  measureLatency: boolean,
  log: (line: string) => void,
): Promise<{ channels: string[]; connectMs: number }> {
  const prefix = server.ready.channelPrefix ?? 'bench:';
  const channels = Array.from({ length: shape.channels }, (_, i) => `${prefix}r${round}-${shape.id}-c${i}`);
  const connected = await workers.connect(
    server.ready.url,
    server.ready.client,
    channels.map((channel) => ({ channel, clients: shape.subscribersPerChannel })),
    measureLatency,
  );
  log(`  ${label}: ${connected.connections} connections subscribed in ${(connected.ms / 1000).toFixed(1)} s`);
  return { channels, connectMs: connected.ms };
}

type Mode = { kind: 'saturation' } | { kind: 'fixed'; deliveriesPerS: number };

export class FanOutRun {
  /** Messages published so far per channel (= the last offset). */
  readonly published: number[];
  private publishedMessages = 0;
  private next = 0;
  /** The workers' count when this connection set started (their counts run on across sets). */
  private readonly deliveredBefore: number;

  private readonly server: Server;
  private readonly workers: Workers;
  private readonly feed: Feed;
  private readonly channels: string[];
  private readonly shape: Shape;
  private readonly settings: FanOutSettings;
  private readonly log: (line: string) => void;

  constructor(deps: {
    server: Server;
    workers: Workers;
    feed: Feed;
    channels: string[];
    shape: Shape;
    settings: FanOutSettings;
    log: (line: string) => void;
  }) {
    this.server = deps.server;
    this.workers = deps.workers;
    this.feed = deps.feed;
    this.channels = deps.channels;
    this.shape = deps.shape;
    this.settings = deps.settings;
    this.log = deps.log;
    this.published = deps.channels.map(() => 0);
    this.deliveredBefore = deps.workers.delivered();
  }

  private delivered(): number {
    return this.workers.delivered() - this.deliveredBefore;
  }

  private expected(): number {
    return this.publishedMessages * this.shape.subscribersPerChannel;
  }

  private publishOne(): void {
    const c = this.next;
    this.next = (c + 1) % this.channels.length;
    this.published[c]! += 1;
    this.publishedMessages++;
    this.feed.publish(this.channels[c]!, this.published[c]!);
  }

  async phase(label: string, mode: Mode): Promise<PhaseResult> {
    const s = this.settings;
    const msgPerS = mode.kind === 'fixed' ? mode.deliveriesPerS / this.shape.subscribersPerChannel : 0;
    const startedMs = performance.now();
    const firstMessage = this.publishedMessages;
    const measureFromMs = startedMs + s.rampS * 1000;
    const endMs = measureFromMs + s.durationS * 1000;
    // Fixed rate: a server more than two seconds behind is not keeping up; stop adding to it.
    const behindCap = mode.kind === 'fixed' ? 2 * mode.deliveriesPerS : s.windowDeliveries;
    let fellBehind = false;
    let window: {
      cpuUs: number;
      clientUs: number;
      feedUs: number;
      redisUs: Promise<number>;
      retrans: number;
      delivered: number;
      atMs: number;
    } | null = null;
    const perSecond: number[] = [];
    let lastSecond = 0;
    while (true) {
      const now = performance.now();
      if (window === null && now >= measureFromMs) {
        window = {
          cpuUs: this.server.cpuUs(),
          clientUs: this.workers.cpuUs(),
          feedUs: ownCpuUs(),
          redisUs: this.feed.redisCpuUs(),
          retrans: tcpRetransSegs(),
          delivered: this.workers.delivered(),
          atMs: now,
        };
        lastSecond = window.delivered;
      }
      if (window !== null && now - window.atMs >= (perSecond.length + 1) * 1000) {
        const delivered = this.workers.delivered();
        perSecond.push(delivered - lastSecond);
        lastSecond = delivered;
        this.log(
          `  ${label.padEnd(30)} ${String(perSecond.length).padStart(3)} s ${String(perSecond.at(-1)).padStart(8)} deliveries/s`,
        );
      }
      if (now >= endMs) break;
      const outstanding = () => this.expected() - this.delivered();
      if (mode.kind === 'saturation') {
        while (outstanding() < s.windowDeliveries) this.publishOne();
      } else {
        const due = firstMessage + Math.floor(((now - startedMs) / 1000) * msgPerS);
        while (this.publishedMessages < due) {
          if (outstanding() > behindCap) {
            fellBehind = true;
            break;
          }
          this.publishOne();
        }
      }
      await sleep(1);
    }
    const w = window!;
    const delivered = this.workers.delivered() - w.delivered;
    const elapsedS = (performance.now() - w.atMs) / 1000;
    const cpuUs = this.server.cpuUs() - w.cpuUs;
    const clientUs = this.workers.cpuUs() - w.clientUs;
    const feedUs = ownCpuUs() - w.feedUs;
    const tcpRetransmits = tcpRetransSegs() - w.retrans;
    const redisUs = (await this.feed.redisCpuUs()) - (await w.redisUs);
    await drainAndVerify({
      label,
      workers: this.workers,
      channels: this.channels,
      published: this.published,
      subscribersPerChannel: this.shape.subscribersPerChannel,
      delivered: () => this.delivered(),
      timeoutMs: this.settings.drainTimeoutMs,
    });
    return {
      deliveriesPerS: delivered / elapsedS,
      deliveries: delivered,
      serverCpuUsPerDelivery: cpuUs / delivered,
      serverCores: cpuUs / 1e6 / elapsedS,
      clientCores: clientUs / 1e6 / elapsedS,
      feedCores: feedUs / 1e6 / elapsedS,
      redisCores: redisUs / 1e6 / elapsedS,
      tcpRetransmits,
      perSecond,
      ...(mode.kind === 'fixed' ? { targetPerS: mode.deliveriesPerS, fellBehind } : {}),
    };
  }
}
