// The rest of the platform for the Lattice variant's latency phase, in a child process of its own
// (so the gateway's CPU figures stay the gateway's): the actors role (channel actors: offsets,
// history, fan-out) and the management role, which the runner publishes through at 1 000 a
// second with the publish quota raised (decisions.md "Benchmarks": beyond the default limits,
// through the management API, so that no per-IP limit applies).
import { actorsRole } from '@lattice/actors';
import { createRoleShared } from '@lattice/cli';
import { createLogger, loadConfig } from '@lattice/core';
import { managementRole } from '@lattice/management';
import { createDb } from '@lattice/store';
import { Registry } from 'prom-client';

export interface PlatformArgs {
  databaseUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
}

export const LIMIT_NEVER_REACHED = 1_000_000_000;

const args = JSON.parse(process.argv[2] ?? '{}') as PlatformArgs;

async function main(): Promise<void> {
  const config = loadConfig(process.env, {
    databaseUrl: args.databaseUrl,
    redisUrl: args.redisUrl,
    redisKeyPrefix: args.redisKeyPrefix,
    kafkaTopicPrefix: args.kafkaTopicPrefix,
    managementPort: 0,
    logLevel: 'warn',
  });
  // Errors only: kafkajs reports the leader moves of fresh topics as warnings.
  const logger = createLogger({ name: 'bench-gateway-platform', level: 'error' });
  const db = createDb({ databaseUrl: config.databaseUrl, logger, poolMax: 20 });
  const shared = createRoleShared({
    config,
    logger,
    registry: new Registry(),
    db,
    realtime: {
      quota: {
        sustainedPerSecond: LIMIT_NEVER_REACHED,
        windowMs: 10_000,
        burstPerWindow: 0,
        hardLimitPerWindow: LIMIT_NEVER_REACHED,
      },
    },
  });
  const actors = await actorsRole.start(actorsRole.configOf(config), shared);
  const management = await managementRole.start(managementRole.configOf(config), shared);
  process.on('message', async (m: { type: string }) => {
    if (m.type !== 'stop') return;
    await management.close();
    await actors.close();
    await shared.close();
    await db.destroy();
    process.exit(0);
  });
  process.send?.({ type: 'ready', managementUrl: management.url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
