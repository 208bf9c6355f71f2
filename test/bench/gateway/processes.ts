// The runner's side of its child processes: one per server variant (started from the variant's
// file, skipped with the reason when its start fails) and the load-client workers. CPU time is
// read from /proc/<pid>/stat (utime + stime, in clock ticks of `getconf CLK_TCK`), the server
// process's only: no IPC round trip, and the same reading for every variant.
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nextMessage } from '../support/child-messages.ts';
import type {
  Assignment,
  ChannelCheck,
  ClientSetup,
  ServerArgs,
  ServerMessage,
  ServerReady,
  VariantName,
  WorkerCommand,
  WorkerMessage,
} from './messages.ts';

const CLOCK_TICKS_PER_S = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU time (user + system) of process `pid` so far, in microseconds. */
export function procCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields from after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) / CLOCK_TICKS_PER_S) * 1e6;
}

/**
 * TCP segments retransmitted so far by this machine (/proc/net/snmp `Tcp: RetransSegs`). On
 * loopback nothing is lost on the wire: retransmissions there are the stack's timers firing when
 * receivers fell behind (zero windows, delayed ACKs), each a stall of 200 ms or more.
 */
export function tcpRetransSegs(): number {
  const lines = readFileSync('/proc/net/snmp', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('Tcp:'));
  const names = lines[0]?.split(' ') ?? [];
  const values = lines[1]?.split(' ') ?? [];
  return Number(values[names.indexOf('RetransSegs')] ?? Number.NaN);
}

export const SERVER_FILES: Record<VariantName, string> = {
  'bare-ws': 'bare-ws-server.ts',
  socketio: 'socketio-server.ts',
  lattice: 'lattice-server.ts',
};

export interface Server {
  name: VariantName;
  ready: ServerReady;
  cpuUs(): number;
  memory(): Promise<Extract<ServerMessage, { type: 'memory' }>>;
  stop(): Promise<void>;
}

const execArgv = ['--import', 'tsx', '--expose-gc'];

/** Starts a variant's server; a failed start answers its reason instead (the child is gone). */
export async function startServer(args: ServerArgs): Promise<Server | { failed: string }> {
  const script = fileURLToPath(new URL(`./${SERVER_FILES[args.variant]}`, import.meta.url));
  const child = fork(script, [JSON.stringify(args)], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const outcome = await new Promise<ServerReady | { failed: string }>((resolve) => {
    const onMessage = (m: ServerMessage) => {
      if (m.type === 'ready' || m.type === 'failed') {
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m.type === 'ready' ? m : { failed: m.reason });
      }
    };
    const onExit = (code: number | null) => resolve({ failed: `exited with ${code} before it was ready` });
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
  if ('failed' in outcome) {
    if (child.exitCode === null) child.kill();
    return outcome;
  }
  return {
    name: args.variant,
    ready: outcome,
    cpuUs: () => procCpuUs(outcome.pid),
    async memory() {
      const answer = nextMessage<ServerMessage, 'memory'>(child, 'memory', `${args.variant} server`);
      child.send({ type: 'memory' });
      return answer;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

export interface Workers {
  pids: number[];
  /** Deliveries counted by all workers so far (as of their last report, at most 50 ms old). */
  delivered(): number;
  cpuUs(): number;
  connect(
    url: string,
    setup: ClientSetup,
    assignments: Assignment[],
    measureLatency: boolean,
  ): Promise<{ connections: number; ms: number }>;
  verify(): Promise<ChannelCheck[]>;
  latencies(): Promise<number[]>;
  close(): Promise<void>;
  stop(): void;
}

/** Spreads each channel's subscribers evenly over the workers. */
function share(assignments: Assignment[], workers: number, index: number): Assignment[] {
  return assignments
    .map((a) => ({
      channel: a.channel,
      clients: Math.floor(a.clients / workers) + (index < a.clients % workers ? 1 : 0),
    }))
    .filter((a) => a.clients > 0);
}

export async function startWorkers(count: number, concurrency: number): Promise<Workers> {
  const script = fileURLToPath(new URL('./load-client.ts', import.meta.url));
  const children: ChildProcess[] = [];
  const counts: number[] = [];
  const pids: number[] = [];
  for (let i = 0; i < count; i++) {
    const child = fork(script, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    counts.push(0);
    child.on('message', (m: WorkerMessage) => {
      if (m.type === 'count') counts[i] = m.delivered;
    });
    pids.push((await nextMessage<WorkerMessage, 'started'>(child, 'started', `load client ${i}`)).pid);
  }
  /** Sends a command to every worker and waits for each one's answer of `type` (or its failure). */
  const all = <T extends WorkerMessage['type']>(command: (i: number) => WorkerCommand, type: T) =>
    Promise.all(
      children.map(
        (child, i) =>
          new Promise<Extract<WorkerMessage, { type: T }>>((resolve, reject) => {
            const onMessage = (m: WorkerMessage) => {
              if (m.type !== type && m.type !== 'failed') return;
              child.off('message', onMessage);
              if (m.type === 'failed') reject(new Error(`load client ${i}: ${m.reason}`));
              else resolve(m as Extract<WorkerMessage, { type: T }>);
            };
            child.on('message', onMessage);
            child.send(command(i));
          }),
      ),
    );
  return {
    pids,
    delivered: () => counts.reduce((a, b) => a + b, 0),
    cpuUs: () => pids.reduce((sum, pid) => sum + procCpuUs(pid), 0),
    async connect(url, setup, assignments, measureLatency) {
      const answers = await all(
        (i) => ({
          type: 'connect',
          url,
          setup,
          assignments: share(assignments, count, i),
          concurrency,
          measureLatency,
        }),
        'connected',
      );
      return {
        connections: answers.reduce((a, b) => a + b.connections, 0),
        ms: Math.max(...answers.map((a) => a.ms)),
      };
    },
    async verify() {
      const answers = await all(() => ({ type: 'verify' }), 'verify');
      return answers.flatMap((a) => a.channels);
    },
    async latencies() {
      const answers = await all(() => ({ type: 'latencies' }), 'latencies');
      return answers.flatMap((a) => a.ms);
    },
    async close() {
      await all(() => ({ type: 'close' }), 'closed');
    },
    stop() {
      for (const child of children) child.disconnect();
    },
  };
}
