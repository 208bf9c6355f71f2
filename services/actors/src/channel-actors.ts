// The realtime part of the actors role: the channel actor kind on `realtime.channel-commands`,
// and its maintenance jobs (history retention purge, presence expiry sweep).
import { type Clock, type Logger, type Scheduler, systemScheduler } from '@lattice/core';
import { loadCodec, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import {
  type ChannelCommandRecord,
  createChannelActorKind,
  createHistoryPurge,
  createPostgresNamespaceRepository,
  createPresenceSweep,
  type PresenceSweep,
} from '@lattice/realtime';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import type { ActorKindRegistration } from './actors-role.ts';
import type { PeriodicJob } from './periodic-jobs.ts';

export interface ChannelActorRegistrationDeps {
  db: Knex;
  /** A command connection (not a subscriber): fan-out PUBLISHes on it. */
  redis: Redis;
  logger: Logger;
  /** `config.redisKeyPrefix`: fan-out channels are `<prefix>rt:<product>:<env>:<channel>`. */
  redisKeyPrefix: string;
  clock?: Clock;
  /** Waits between fan-out attempts. Default systemScheduler. */
  scheduler?: Scheduler;
  /** Where the realtime stage histograms go (docs/architecture.md "Where the time goes"). */
  registry?: Registry;
}

export function channelCommandCodec() {
  return loadCodec<ChannelCommandRecord>(TOPIC_CATALOG.channelCommands.schema);
}

export function channelActorRegistration(
  deps: ChannelActorRegistrationDeps,
): ActorKindRegistration<ChannelCommandRecord> {
  return {
    topic: TOPIC_CATALOG.channelCommands.name,
    codec: channelCommandCodec(),
    stageFlow: 'realtime',
    kind: createChannelActorKind({
      db: deps.db,
      redis: deps.redis,
      namespaces: createPostgresNamespaceRepository(deps.db),
      logger: deps.logger,
      ...(deps.clock ? { clock: deps.clock } : {}),
      scheduler: deps.scheduler ?? systemScheduler,
      keyPrefix: deps.redisKeyPrefix,
      ...(deps.registry ? { registry: deps.registry } : {}),
    }),
  };
}

export interface RealtimeJobsDeps {
  db: Knex;
  logger: Logger;
  clock?: Clock;
  /** Default 10 minutes. */
  historyPurgeIntervalMs?: number;
  /** Default 5 seconds: a quiet channel's expired presence entry leaves within about that. */
  presenceSweepIntervalMs?: number;
  /** Limit both jobs to these products (tests sharing a database); default every product. */
  productIds?: readonly string[];
}

export function realtimeJobs(deps: RealtimeJobsDeps): PeriodicJob[] {
  const common = {
    db: deps.db,
    logger: deps.logger,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.productIds ? { productIds: deps.productIds } : {}),
  };
  const purge = createHistoryPurge(common);
  const codec = channelCommandCodec();
  let sweep: PresenceSweep | undefined;
  return [
    {
      name: 'history-purge',
      intervalMs: deps.historyPurgeIntervalMs ?? 600_000,
      run: async () => {
        await purge.runOnce();
      },
    },
    {
      name: 'presence-sweep',
      intervalMs: deps.presenceSweepIntervalMs ?? 5_000,
      run: async ({ producer, topicPrefix }) => {
        sweep ??= createPresenceSweep({
          ...common,
          producer,
          topic: topicName(topicPrefix, TOPIC_CATALOG.channelCommands.name),
          codec,
        });
        await sweep.runOnce();
      },
    },
  ];
}
