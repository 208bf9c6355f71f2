// Benchmarks drive their servers as child processes over IPC; this waits for the next message
// of one type (failing when the child exits first), asks a child for one, and starts one.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function nextMessage<M extends { type: string }, T extends M['type']>(
  child: ChildProcess,
  type: T,
  label: string,
): Promise<Extract<M, { type: T }>> {
  return new Promise((resolve, reject) => {
    // Both listeners go once either fires: a bench asks its servers many times.
    const onMessage = (m: M) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as Extract<M, { type: T }>);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`${label} exited with ${code}`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Sends `{ type }` to `child` and waits for its answer, the child's next message of that type. */
export function askChild<M extends { type: string }, T extends M['type']>(
  child: ChildProcess,
  type: T,
  label: string,
): Promise<Extract<M, { type: T }>> {
  const answer = nextMessage<M, T>(child, type, label);
  child.send({ type });
  return answer;
}

type CpuMessage = { type: 'cpu'; userUs: number; systemUs: number };

export interface BenchServerControl {
  /** The child's CPU time so far (user + system), in microseconds. */
  cpuUs(): Promise<number>;
  /** Asks the child to stop and waits for it to exit. */
  stop(): Promise<void>;
}

/** What a bench asks of a server child: its CPU time, and to stop. */
export function controlOf(child: ChildProcess, label: string): BenchServerControl {
  return {
    async cpuUs() {
      const { userUs, systemUs } = await askChild<CpuMessage, 'cpu'>(child, 'cpu', label);
      return userUs + systemUs;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

/**
 * A benchmark's server child: `script` (a URL) under tsx with `args` as JSON, IPC on, output
 * inherited; with `profileDir`, a V8 CPU profile named after `role` is written there on exit.
 * `env` is added to this process's environment for the child (settings Node reads only at
 * start, such as NODE_EXTRA_CA_CERTS, or a role's own).
 */
export function forkBenchChild(
  script: URL,
  args: { role: string },
  profileDir: string | undefined,
  env: Record<string, string> = {},
): ChildProcess {
  return fork(fileURLToPath(script), [JSON.stringify(args)], {
    env: { ...process.env, ...env },
    execArgv: [
      '--import',
      'tsx',
      ...(profileDir
        ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${args.role}.cpuprofile`]
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** A server child that reports `ready` with its URL, and answers `stats` with counters `S`. */
export interface StatsServer<S> {
  child: ChildProcess;
  url: string;
  /** The child's counters so far: its `stats` answer as it came (`type` included). */
  stats(): Promise<S>;
  stop(): Promise<void>;
}

/** Starts `script` as a server child (forkBenchChild) and waits until it is ready. */
export async function startStatsServer<S>(
  script: URL,
  args: { role: string },
  profileDir: string | undefined,
  env: Record<string, string> = {},
): Promise<StatsServer<S>> {
  const child = forkBenchChild(script, args, profileDir, env);
  const label = `bench ${args.role}`;
  const ready = await nextMessage<{ type: 'ready'; url: string }, 'ready'>(child, 'ready', label);
  return {
    child,
    url: ready.url,
    stats: () =>
      askChild<{ type: 'stats' }, 'stats'>(child, 'stats', label) as Promise<unknown> as Promise<S>,
    stop: controlOf(child, label).stop,
  };
}
