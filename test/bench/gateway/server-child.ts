// The child-process side of one fan-out server of the gateway benchmark (fork, IPC). Each server
// file (bare-ws-server.ts, socketio-server.ts, lattice-server.ts) calls `runServerChild` with its
// start function; this answers the runner's questions (CPU, memory, stop) the same way for all of
// them, and turns a failed start into a `failed` message the runner reports before skipping the
// variant.
import type { MemorySample, ServerArgs, ServerMessage, ServerReady } from './messages.ts';

export interface RunningServer {
  ready: Omit<ServerReady, 'type' | 'pid'>;
  stop(): Promise<void>;
}

const send = (m: ServerMessage) => process.send?.(m);

const sample = (): MemorySample => {
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapTotal, heapUsed, external, arrayBuffers };
};

export function serverArgs(): ServerArgs {
  return JSON.parse(process.argv[2] ?? '{}') as ServerArgs;
}

export function runServerChild(start: (args: ServerArgs) => Promise<RunningServer>): void {
  const args = serverArgs();
  start(args).then(
    (running) => {
      process.on('message', (m: { type: string }) => {
        if (m.type === 'cpu') {
          const { user, system } = process.cpuUsage();
          send({ type: 'cpu', userUs: user, systemUs: system });
        } else if (m.type === 'memory') {
          // Read as the process is (what the OS sees), then after a full collection (the runner
          // starts us with --expose-gc): live objects, without the garbage waiting for the next one.
          const raw = sample();
          (globalThis as { gc?: () => void }).gc?.();
          send({ type: 'memory', raw, collected: sample() });
        } else if (m.type === 'stop') {
          void running.stop().finally(() => process.exit(0));
        }
      });
      send({ type: 'ready', pid: process.pid, ...running.ready });
    },
    (err: unknown) => {
      send({ type: 'failed', reason: err instanceof Error ? err.message : String(err) });
      // Let the IPC message leave before the exit.
      setTimeout(() => process.exit(1), 100);
    },
  );
}
