// The server side of the publish benchmark: two child processes of run.ts (fork, IPC), one per
// role, started through the role modules as `lattice start actors` and `lattice start edge --env
// production` start them:
//   actors  the actors role with the channel actor kind (history in PostgreSQL, fan-out on Redis)
//   edge    the production public edge with the realtime toolkit over the realtime HTTP runtime
//           (Idempotency-Key store and quota in Redis, group-committed acks=all producer)
// Each runs with the settings `lattice start` gives it (the actors' periodic jobs over every
// product, the edge's snapshot refresh and key change notifications), logging at args.logLevel to
// args.logFile (support/platform-log.ts). The publish quota is raised out of the way (the
// benchmark measures the path, not the limit); the per-IP limit too. The parent asks for CPU time over IPC.
import { actorsRole } from '@lattice/actors';
import { edgeRole } from '@lattice/edge';
import { actorsSettingsOf, benchPlatform } from '../support/bench-product.ts';
import type { LogLevel } from '../support/platform-log.ts';

export interface ServerArgs {
  role: 'actors' | 'edge';
  databaseUrl: string;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
  logLevel: LogLevel;
  logFile: string;
}

export type ServerMessage =
  | { type: 'ready'; url: string | null }
  | { type: 'cpu'; userUs: number; systemUs: number };

const args = JSON.parse(process.argv[2] ?? '{}') as ServerArgs;
const send = (m: ServerMessage) => process.send?.(m);

async function main(): Promise<void> {
  const { config, db, shared } = benchPlatform(args, 'bench-publish-server');
  const stops: Array<() => Promise<void>> = [];
  let url: string | null = null;
  if (args.role === 'actors') {
    const actors = await actorsRole.start(actorsSettingsOf(config), shared);
    stops.push(() => actors.close());
  } else {
    const role = edgeRole('production');
    const edge = await role.start(role.configOf(config), shared);
    url = edge.url;
    stops.push(() => edge.close());
  }
  stops.push(() => shared.close());
  process.on('message', async (m: { type: string }) => {
    if (m.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', userUs: user, systemUs: system });
    } else if (m.type === 'stop') {
      for (const stop of stops) await stop();
      await db.destroy();
      process.exit(0);
    }
  });
  send({ type: 'ready', url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
