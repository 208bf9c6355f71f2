// The runner's side of the load clients, the same for every arm: one publisher process
// (publisher.ts) and the subscriber workers (subscribers.ts), each channel's subscribers spread
// evenly over the workers.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nextMessage } from '../support/child-messages.ts';
import type {
  Assignment,
  DeliveryCheck,
  Expected,
  PublisherMessage,
  PublishPlan,
  PublishResult,
  SubscriberCommand,
  SubscriberMessage,
} from './messages.ts';
import { sumChecks } from './subscriber-state.ts';

function forkClient(file: string): ChildProcess {
  const child = fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // A send to a child that is gone (stopped by a Ctrl-C) fails its command below, not the run.
  child.on('error', () => undefined);
  return child;
}

/** Sends `command`, or throws when the child is gone. */
function ask(child: ChildProcess, label: string, command: object): void {
  if (!child.connected) throw new Error(`${label} is gone`);
  child.send(command);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface PublishEvents {
  progress(sent: number, answered: number, failed: number): void;
  /** The ramp is over. */
  measuring(): void;
  /** The schedule is over. */
  published(): void;
}

export interface Publisher {
  pid: number;
  run(plan: PublishPlan, events: PublishEvents): Promise<PublishResult>;
  stop(): Promise<void>;
}

export async function startPublisher(): Promise<Publisher> {
  const child = forkClient('./publisher.ts');
  const { pid } = await nextMessage<PublisherMessage, 'started'>(child, 'started', 'publisher');
  return {
    pid,
    run(plan, events) {
      return new Promise((resolve, reject) => {
        const onMessage = (m: PublisherMessage) => {
          if (m.type === 'progress') events.progress(m.sent, m.answered, m.failed);
          else if (m.type === 'measuring') events.measuring();
          else if (m.type === 'published') events.published();
          else if (m.type === 'done' || m.type === 'failed') {
            child.off('message', onMessage);
            child.off('exit', onExit);
            if (m.type === 'done') resolve(m.result);
            else reject(new Error(`publisher: ${m.reason}`));
          }
        };
        const onExit = (code: number | null) => reject(new Error(`publisher exited with ${code}`));
        child.on('message', onMessage);
        child.once('exit', onExit);
        ask(child, 'publisher', { type: 'run', plan });
      });
    },
    async stop() {
      if (child.connected) child.disconnect();
      await exited(child);
    },
  };
}

export interface Subscribers {
  pids: number[];
  /** Deliveries counted by all workers since their last `close` (as of their last report, ≤ 50 ms old). */
  delivered(): number;
  connect(url: string, assignments: Assignment[]): Promise<{ connections: number; ms: number }>;
  verify(expected: Expected): Promise<{ check: DeliveryCheck; latencies: Float64Array[] }>;
  close(): Promise<void>;
  stop(): Promise<void>;
}

/** Spreads each channel's subscribers evenly over the workers. */
function share(assignments: Assignment[], workers: number, index: number): Assignment[] {
  return assignments
    .map((a) => ({ ...a, clients: Math.floor(a.clients / workers) + (index < a.clients % workers ? 1 : 0) }))
    .filter((a) => a.clients > 0);
}

export async function startSubscribers(count: number, concurrency: number): Promise<Subscribers> {
  const children: ChildProcess[] = [];
  const counts: number[] = [];
  const pids: number[] = [];
  for (let i = 0; i < count; i++) {
    const child = forkClient('./subscribers.ts');
    children.push(child);
    counts.push(0);
    child.on('message', (m: SubscriberMessage) => {
      if (m.type === 'count') counts[i] = m.delivered;
    });
    pids.push((await nextMessage<SubscriberMessage, 'started'>(child, 'started', `subscribers ${i}`)).pid);
  }
  /** Sends a command to every worker and waits for each one's answer of `type` (or its failure). */
  const all = <T extends SubscriberMessage['type']>(command: (i: number) => SubscriberCommand, type: T) =>
    Promise.all(
      children.map(
        (child, i) =>
          new Promise<Extract<SubscriberMessage, { type: T }>>((resolve, reject) => {
            const onExit = (code: number | null) => reject(new Error(`subscribers ${i} exited with ${code}`));
            const onMessage = (m: SubscriberMessage) => {
              if (m.type !== type && m.type !== 'failed') return;
              child.off('message', onMessage);
              child.off('exit', onExit);
              if (m.type === 'failed') reject(new Error(`subscribers ${i}: ${m.reason}`));
              else resolve(m as Extract<SubscriberMessage, { type: T }>);
            };
            child.on('message', onMessage);
            child.once('exit', onExit);
            ask(child, `subscribers ${i}`, command(i));
          }),
      ),
    );
  return {
    pids,
    delivered: () => counts.reduce((a, b) => a + b, 0),
    async connect(url, assignments) {
      const answers = await all(
        (i) => ({ type: 'connect', url, assignments: share(assignments, count, i), concurrency }),
        'connected',
      );
      return {
        connections: answers.reduce((a, b) => a + b.connections, 0),
        ms: Math.max(...answers.map((a) => a.ms)),
      };
    },
    async verify(expected) {
      const answers = await all(() => ({ type: 'verify', expected }), 'verify');
      return { check: sumChecks(answers.map((a) => a.check)), latencies: answers.map((a) => a.latencies) };
    },
    async close() {
      await all(() => ({ type: 'close' }), 'closed');
      counts.fill(0);
    },
    async stop() {
      for (const child of children) if (child.connected) child.disconnect();
      await Promise.all(children.map(exited));
    },
  };
}
