// `lattice infra up|down|status`: the local Kafka, Redis and PostgreSQL Lattice runs on.
// `down` stops only what `up` (or `lattice start`) started; services that were already running
// are left alone.
import { ensureInfra, infraStatus, stopInfra } from '@lattice/infra';
import type { CommandContext } from '../context.ts';

export async function runInfra(
  { config, logger }: CommandContext,
  action: string | undefined,
): Promise<number> {
  switch (action) {
    case 'up': {
      const r = await ensureInfra({ config, logger, searchPath: process.env.PATH ?? '' });
      console.log(
        `infra ready in ${(r.elapsedMs / 1000).toFixed(1)} s; started: ${r.started.join(', ') || 'nothing'}; already running: ${r.reused.join(', ') || 'nothing'}`,
      );
      return 0;
    }
    case 'down': {
      const r = await stopInfra({ logger });
      console.log(`stopped: ${r.stopped.join(', ') || 'nothing'}`);
      return 0;
    }
    case 'status': {
      for (const s of await infraStatus(config, { logger })) {
        const owner = s.managedPid ? `started by lattice (pid ${s.managedPid})` : 'not managed by lattice';
        console.log(
          `${s.name.padEnd(10)} ${s.address.padEnd(24)} ${s.answering ? 'up  ' : 'down'}  ${owner}`,
        );
      }
      return 0;
    }
    default:
      console.error('usage: lattice infra up|down|status');
      return 2;
  }
}
