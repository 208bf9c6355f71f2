// The rest of the platform for the Lattice variant's latency phase, in a child process of its own
// (so the gateway's CPU figures stay the gateway's): the actors role (channel actors: offsets,
// history, fan-out) and the production edge, which the runner publishes through at 1 000 a
// second with the publish quota and the per-IP limit raised. decisions.md ("Benchmarks") would
// send through the management API so that no per-IP limit applies; on this machine management
// answers at most about 700 publishes a second (docs/benchmarks.md), so the edge with its
// per-IP limit raised out of the way stands in: the same publish service behind another door.
import { actorsRole } from '@lattice/actors';
import { edgeRole } from '@lattice/edge';
import { benchPlatform } from '../support/bench-product.ts';

export interface PlatformArgs {
  databaseUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as PlatformArgs;

async function main(): Promise<void> {
  const { config, db, shared } = benchPlatform(args, 'bench-gateway-platform');
  const actors = await actorsRole.start({ ...actorsRole.configOf(config), inbound: null }, shared);
  const role = edgeRole('production');
  const edge = await role.start({ ...role.configOf(config), keyChangeNotifications: false }, shared);
  process.on('message', async (m: { type: string }) => {
    if (m.type !== 'stop') return;
    await edge.close();
    await actors.close();
    await shared.close();
    await db.destroy();
    process.exit(0);
  });
  process.send?.({ type: 'ready', edgeUrl: edge.url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
