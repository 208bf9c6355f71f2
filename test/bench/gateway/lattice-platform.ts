// The rest of the platform behind the Lattice variant's HTTP publish hook, in a child process of
// its own (so the gateway's CPU figures stay the gateway's): the actors role (channel actors:
// offsets, history, fan-out) and the production edge, which the runner publishes through (the
// latency phase, the publish-path shapes) with the publish quota and the per-IP limit raised. Both
// run with the settings `lattice start` gives them (the actors' periodic jobs over every product,
// the edge's key snapshot refresh and change notifications), logging at args.logLevel to
// args.logFile. The publishes go through the edge rather than the management API, whose own
// answers cap the rate well below what these phases ask: the same publish service behind another
// door.
import { actorsRole } from '@lattice/actors';
import { edgeRole } from '@lattice/edge';
import { actorsSettingsOf, benchPlatform } from '../support/bench-product.ts';
import type { LogLevel } from '../support/platform-log.ts';

export interface PlatformArgs {
  databaseUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
  logLevel: LogLevel;
  logFile: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as PlatformArgs;

async function main(): Promise<void> {
  const { config, db, shared } = benchPlatform(args, 'bench-gateway-platform');
  const actors = await actorsRole.start(actorsSettingsOf(config), shared);
  const role = edgeRole('production');
  const edge = await role.start(role.configOf(config), shared);
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
