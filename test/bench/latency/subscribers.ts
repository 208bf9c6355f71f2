// A subscriber worker of the latency benchmark, a child process of run.ts (fork, IPC). On
// `connect` it opens its share of the WebSocket connections, each subscribed to one channel with
// the JSON frames the Lattice gateway speaks (and the bare pipeline's ws server too):
// `{"id":1,"action":"auth","token"}` first when the channel came with a token, then
// `{"id":2,"action":"subscribe","channel"}`, each waiting for its `{id, result}` reply. It then
// counts every message push (reported every 50 ms), checks its sequence number and keeps
// receive − send time, both read on this machine's clock. `verify` answers the checks and the
// latencies; `close` drops the connections.
import { WebSocket } from 'ws';
import type { Assignment, SubscriberCommand, SubscriberMessage } from './messages.ts';
import { readPush, Samples, SubscriberState, sumChecks } from './subscriber-state.ts';

const send = (m: SubscriberMessage) => process.send?.(m);
const nowEpochMs = () => performance.timeOrigin + performance.now();
const REPLY_TIMEOUT_MS = 30_000;

let connections: WebSocket[] = [];
let subscribers: SubscriberState[] = [];
const latencies = new Samples();
let delivered = 0;
let reported = -1;

setInterval(() => {
  if (delivered === reported) return;
  reported = delivered;
  send({ type: 'count', delivered });
}, 50).unref();

async function subscribe(url: string, channel: string, token: string | undefined): Promise<void> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  connections.push(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const state = new SubscriberState(channel);
  subscribers.push(state);
  let waiting: { id: number; settle: (reply: { error?: { code: string; message: string } }) => void } | null =
    null;
  ws.on('message', (data: Buffer) => {
    if (waiting !== null) {
      const reply = JSON.parse(data.toString()) as {
        id?: unknown;
        error?: { code: string; message: string };
      };
      if (reply.id === waiting.id) waiting.settle(reply);
      return;
    }
    const push = readPush(data);
    if (push === null) return;
    delivered++;
    state.receive(push.s, push.a);
    if (push.p === 1) latencies.push(nowEpochMs() - push.t);
  });
  ws.once('close', (code) => waiting?.settle({ error: { code: 'closed', message: String(code) } }));
  const ask = (id: number, frame: Record<string, unknown>) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no reply to ${frame.action} in 30 s`)),
        REPLY_TIMEOUT_MS,
      );
      waiting = {
        id,
        settle: (reply) => {
          clearTimeout(timer);
          waiting = null;
          if (reply.error) reject(new Error(`${frame.action}: ${reply.error.code} ${reply.error.message}`));
          else resolve();
        },
      };
      ws.send(JSON.stringify({ id, ...frame }));
    });
  if (token !== undefined) await ask(1, { action: 'auth', token });
  await ask(2, { action: 'subscribe', channel });
}

async function open(url: string, assignments: Assignment[], concurrency: number): Promise<void> {
  const startedMs = performance.now();
  const queue = assignments.flatMap((a) => Array.from({ length: a.clients }, () => a));
  let next = 0;
  const worker = async () => {
    while (next < queue.length) {
      const a = queue[next++]!;
      await subscribe(url, a.channel, a.token);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  send({ type: 'connected', connections: subscribers.length, ms: performance.now() - startedMs });
}

process.on('message', (command: SubscriberCommand) => {
  if (command.type === 'connect') {
    open(command.url, command.assignments, command.concurrency).catch((err: unknown) =>
      send({ type: 'failed', reason: err instanceof Error ? err.message : String(err) }),
    );
  } else if (command.type === 'verify') {
    const check = sumChecks(subscribers.map((s) => s.check(command.expected[s.channel])));
    send({ type: 'verify', check, latencies: latencies.take() });
  } else if (command.type === 'close') {
    for (const ws of connections) ws.terminate();
    connections = [];
    subscribers = [];
    latencies.take();
    delivered = 0;
    reported = 0;
    send({ type: 'count', delivered: 0 });
    // Give the closes a moment to reach the server before the next phase measures anything.
    setTimeout(() => send({ type: 'closed' }), 200);
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'started', pid: process.pid });
