// The child-process side of a bare pipeline server (fork, IPC): its start function gets the
// run's settings (argv[2], JSON); the runner hears `ready` with the process id (its CPU time is
// read from /proc) or `failed` with the reason, and stops it with a `stop` message. A child whose
// runner is gone, or that gets SIGINT or SIGTERM, stops too. kafkajs 2.2.4 gets the request-queue fix Lattice's own clients get
// (`stopIdleRequestQueuePolling`: no 1 ms timer on idle connections, docs/benchmarks.md "Mail
// webhooks"), so the part costs the same in both arms.
import { stopIdleRequestQueuePolling } from '@lattice/kafka';
import type { BareChildArgs, BareChildMessage } from './messages.ts';

export interface RunningBare {
  url: string | null;
  stop(): Promise<void>;
}

const send = (m: BareChildMessage) => process.send?.(m);

export function runBareChild(start: (args: BareChildArgs) => Promise<RunningBare>): void {
  stopIdleRequestQueuePolling();
  const args = JSON.parse(process.argv[2] ?? '{}') as BareChildArgs;
  start(args).then(
    (running) => {
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        void running.stop().finally(() => process.exit(0));
      };
      process.on('message', (m: { type: string }) => {
        if (m.type === 'stop') stop();
      });
      process.on('disconnect', stop);
      // A Ctrl-C reaches the whole process group: stop as asked (the consumer leaves its group).
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      send({ type: 'ready', pid: process.pid, url: running.url });
    },
    (err: unknown) => {
      send({ type: 'failed', reason: err instanceof Error ? err.message : String(err) });
      // Let the IPC message leave before the exit.
      setTimeout(() => process.exit(1), 100);
    },
  );
}
