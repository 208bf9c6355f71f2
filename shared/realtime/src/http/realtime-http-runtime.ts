// For composition roots (`lattice start`, tests, the benchmark): the realtime HTTP services with
// their own connections, from the deployment's config. Kafka is connected on the first publish
// (and again after a failed connect), so a role starts while Kafka is still coming up; Redis is
// one command connection; payloads over the inline cap go to the local folder
// `<dataDir>/payloads` for every product unless a registry is given.
import { join } from 'node:path';
import type { LatticeConfig, Logger } from '@lattice/core';
import { createKafka, createRecordProducer, loadCodec, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import { closeRedis, createRedis } from '@lattice/redis';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import type { ChannelCommandRecord } from '../channel/channel-command.ts';
import { createPayloadStoreRegistry } from '../payload/payload-registry.ts';
import { createFilesystemPayloadStore } from '../payload/payload-store.fs.ts';
import type { PayloadStoreRegistry } from '../payload/payload-store.ts';
import { type ChannelCommandPublisher, createChannelCommandPublisher } from './command-publisher.ts';
import { type PublishQuota, type PublishQuotaMetrics, publishQuotaOf } from './publish-quota.ts';
import { createRealtimeHttp, type RealtimeHttp, type RealtimeHttpDeps } from './realtime-http.ts';

export interface RealtimeHttpRuntimeOptions {
  config: LatticeConfig;
  db: Knex;
  logger: Logger;
  /** Names the connections (`management`, `edge-production`). */
  name: string;
  /** Default: a client for config.kafkaBrokers. */
  kafka?: Kafka;
  /** Default: the local folder `<config.dataDir>/payloads` for every product. */
  payloads?: PayloadStoreRegistry;
  /** Default: config.publishQuota. */
  quota?: PublishQuota;
  /** Default 10 000. */
  publishTimeoutMs?: number;
  policyCacheTtlMs?: number;
  /** Counts the quota's local answers and the publishes beyond its soft budget (realtimeHttpMetrics). */
  metrics: PublishQuotaMetrics;
  clock?: RealtimeHttpDeps['clock'];
}

export interface RealtimeHttpRuntime {
  http: RealtimeHttp;
  commands: ChannelCommandPublisher;
  close(): Promise<void>;
}

export function startRealtimeHttpRuntime(opts: RealtimeHttpRuntimeOptions): RealtimeHttpRuntime {
  const { config, logger } = opts;
  const kafka =
    opts.kafka ??
    createKafka({ brokers: config.kafkaBrokers, clientId: `${config.kafkaClientId}-${opts.name}`, logger });
  const redis = createRedis({ url: config.redisUrl, logger, name: `${opts.name}-realtime` });
  // Quota and Idempotency-Key commands of concurrent publishes go out as one write per turn.
  redis.options.enableAutoPipelining = true;
  const commands = createChannelCommandPublisher({
    producer: () => createRecordProducer(kafka),
    topic: topicName(config.kafkaTopicPrefix, TOPIC_CATALOG.channelCommands.name),
    codec: loadCodec<ChannelCommandRecord>(TOPIC_CATALOG.channelCommands.schema),
    logger,
    ...(opts.publishTimeoutMs === undefined ? {} : { timeoutMs: opts.publishTimeoutMs }),
  });
  const payloads =
    opts.payloads ??
    createPayloadStoreRegistry({
      store: createFilesystemPayloadStore({ dir: join(config.dataDir, 'payloads') }),
    });
  const http = createRealtimeHttp({
    db: opts.db,
    logger,
    gatewayUrls: config.gatewayUrls,
    ...(opts.policyCacheTtlMs === undefined ? {} : { policyCacheTtlMs: opts.policyCacheTtlMs }),
    ...(opts.clock ? { clock: opts.clock } : {}),
    publishing: {
      redis,
      redisKeyPrefix: config.redisKeyPrefix,
      quotaRedisTimeoutMs: config.rateLimitRedisTimeoutMs,
      commands,
      payloads,
      quota: opts.quota ?? publishQuotaOf(config.publishQuota),
      metrics: opts.metrics,
    },
  });
  return {
    http,
    commands,
    async close() {
      await commands.close();
      await closeRedis(redis);
    },
  };
}
