// A load-client worker of the gateway benchmark, a child process of run.ts (fork, IPC). On
// `connect` it opens its share of the subscriber connections (each subscribed to one channel),
// then counts message pushes, checking each subscriber's offsets are dense (every offset once, in
// order); every 50 ms it reports its total count. `verify` answers per channel; `close` drops the
// connections. The workers are where the benchmark's own CPU goes: on two cores they, not the
// servers, cap deliveries per second.
import { performance } from 'node:perf_hooks';
import { type Connection, connect } from './connect.ts';
import type { ChannelCheck, WorkerCommand, WorkerMessage } from './messages.ts';

const send = (m: WorkerMessage) => process.send?.(m);
const REPORT_EVERY_MS = 50;

interface Subscriber {
  channel: string;
  last: number;
  gaps: number;
  dups: number;
}

let connections: Connection[] = [];
let subscribers: Subscriber[] = [];
let latencies: number[] = [];
let delivered = 0;
let reported = -1;

setInterval(() => {
  if (delivered === reported) return;
  reported = delivered;
  send({ type: 'count', delivered });
}, REPORT_EVERY_MS).unref();

const nowEpochMs = () => performance.timeOrigin + performance.now();

async function open(command: Extract<WorkerCommand, { type: 'connect' }>): Promise<void> {
  const startedMs = performance.now();
  const queue = command.assignments.flatMap((a) => Array.from({ length: a.clients }, () => a.channel));
  let next = 0;
  const one = async () => {
    while (next < queue.length) {
      const channel = queue[next++]!;
      const s: Subscriber = { channel, last: 0, gaps: 0, dups: 0 };
      subscribers.push(s);
      const onPush = (offset: number, sentAtMs: number) => {
        delivered++;
        if (offset === s.last + 1) s.last = offset;
        else if (offset <= s.last) s.dups++;
        else {
          s.gaps += offset - s.last - 1;
          s.last = offset;
        }
        if (!Number.isNaN(sentAtMs)) latencies.push(nowEpochMs() - sentAtMs);
      };
      connections.push(await connect(command.url, command.setup, channel, command.measureLatency, onPush));
    }
  };
  await Promise.all(Array.from({ length: command.concurrency }, one));
  send({ type: 'connected', connections: connections.length, ms: performance.now() - startedMs });
}

function verify(): ChannelCheck[] {
  const byChannel = new Map<string, ChannelCheck>();
  for (const s of subscribers) {
    let c = byChannel.get(s.channel);
    if (c === undefined) {
      c = { channel: s.channel, clients: 0, minLast: s.last, maxLast: s.last, gaps: 0, dups: 0 };
      byChannel.set(s.channel, c);
    }
    c.clients++;
    c.minLast = Math.min(c.minLast, s.last);
    c.maxLast = Math.max(c.maxLast, s.last);
    c.gaps += s.gaps;
    c.dups += s.dups;
  }
  return [...byChannel.values()];
}

process.on('message', (command: WorkerCommand) => {
  if (command.type === 'connect') {
    open(command).catch((err: unknown) =>
      send({ type: 'failed', reason: err instanceof Error ? err.message : String(err) }),
    );
  } else if (command.type === 'verify') {
    send({ type: 'verify', channels: verify() });
  } else if (command.type === 'latencies') {
    send({ type: 'latencies', ms: latencies });
    latencies = [];
  } else if (command.type === 'close') {
    for (const c of connections) c.close();
    connections = [];
    subscribers = [];
    latencies = [];
    // Give the closes a moment to leave before the next phase measures anything.
    setTimeout(() => send({ type: 'closed' }), 200);
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'started', pid: process.pid });
