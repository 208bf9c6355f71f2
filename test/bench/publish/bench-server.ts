// The server side of the publish benchmark: two child processes of run.ts (fork, IPC), one per
// role as `lattice start actors` and `lattice start edge --env production` run them:
//   actors  the actors role with the channel actor kind (history in PostgreSQL, fan-out on Redis)
//   edge    the production public edge with the realtime toolkit over the realtime HTTP runtime
//           (Idempotency-Key store and quota in Redis, group-committed acks=all producer)
// The publish quota is raised out of the way (the benchmark measures the path, not the limit);
// the per-IP limit too. The parent asks for CPU time over IPC.

import { join } from 'node:path';
import { channelActorRegistration, startActorsRole } from '@lattice/actors';
import { createLogger, loadConfig, systemClock } from '@lattice/core';
import { createToolkitRegistry, registerRealtimeToolkit, startEdge } from '@lattice/edge';
import { createKafka } from '@lattice/kafka';
import {
  createFilesystemPayloadStore,
  createPayloadStoreRegistry,
  realtimeHttpMetrics,
  realtimeHttpSettingsOf,
  startRealtimeHttpRuntime,
} from '@lattice/realtime';
import { closeRedis, createRedis } from '@lattice/redis';
import { createDb } from '@lattice/store';
import { Registry } from 'prom-client';

export interface ServerArgs {
  role: 'actors' | 'edge';
  databaseUrl: string;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
}

export type ServerMessage =
  | { type: 'ready'; url: string | null }
  | { type: 'cpu'; userUs: number; systemUs: number };

const LIMIT_NEVER_REACHED = 1_000_000_000;
const args = JSON.parse(process.argv[2] ?? '{}') as ServerArgs;
const send = (m: ServerMessage) => process.send?.(m);

async function main(): Promise<void> {
  const config = loadConfig(process.env, {
    databaseUrl: args.databaseUrl,
    redisKeyPrefix: args.redisKeyPrefix,
    kafkaTopicPrefix: args.kafkaTopicPrefix,
    publicUrls: { production: 'http://127.0.0.1:0', development: 'http://127.0.0.1:0' },
    perIpRequestsPerMinute: LIMIT_NEVER_REACHED,
    logLevel: 'warn',
  });
  // Errors only: kafkajs reports the leader moves of fresh topics as warnings.
  const logger = createLogger({ name: 'bench-publish-server', level: 'error' });
  const db = createDb({ databaseUrl: config.databaseUrl, logger, poolMax: 20 });
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: `bench-publish-${args.role}`, logger });
  const stops: Array<() => Promise<void>> = [];
  let url: string | null = null;
  if (args.role === 'actors') {
    const actorsRedis = createRedis({ url: config.redisUrl, logger, name: 'bench-actors' });
    const actors = await startActorsRole({
      config,
      kafka,
      logger,
      registry: new Registry(),
      kinds: [
        channelActorRegistration({ db, redis: actorsRedis, logger, redisKeyPrefix: config.redisKeyPrefix }),
      ],
    });
    stops.push(
      () => actors.stop(),
      () => closeRedis(actorsRedis),
    );
  } else {
    const realtimeRedis = createRedis({ url: config.redisUrl, logger, name: 'bench-edge-realtime' });
    const runtime = startRealtimeHttpRuntime(
      {
        ...realtimeHttpSettingsOf(config),
        quota: {
          sustainedPerSecond: LIMIT_NEVER_REACHED,
          windowMs: 10_000,
          burstPerWindow: 0,
          hardLimitPerWindow: LIMIT_NEVER_REACHED,
        },
      },
      {
        db,
        logger,
        redis: realtimeRedis,
        kafka,
        payloads: createPayloadStoreRegistry({
          store: createFilesystemPayloadStore({ dir: join(config.dataDir, 'payloads') }),
        }),
        metrics: realtimeHttpMetrics(new Registry()),
        clock: systemClock,
      },
    );
    const toolkits = createToolkitRegistry();
    registerRealtimeToolkit(toolkits, { realtime: runtime.http });
    const limitsRedis = createRedis({ url: config.redisUrl, logger, name: 'bench-edge-limits' });
    const edge = await startEdge({
      config,
      environment: 'production',
      db,
      redis: limitsRedis,
      logger,
      registry: new Registry(),
      toolkits,
      notifications: false,
    });
    url = edge.url;
    stops.push(
      () => edge.close(),
      () => runtime.close(),
      () => closeRedis(realtimeRedis),
      () => closeRedis(limitsRedis),
    );
  }
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
