// The realtime HTTP services with their producer, for the roles that serve them (the edges and
// management of one process share one runtime). The composition root gives the clients: the
// Kafka producer is connected on the first publish (and again after a failed connect), so a
// role starts while Kafka is still coming up.
import type { Clock, Environment, LatticeConfig, Logger, Scheduler, SecretKeyring } from '@lattice/core';
import {
  createRecordProducer,
  loadCodec,
  type PartitionPlacement,
  type StageTimer,
  TOPIC_CATALOG,
  topicName,
} from '@lattice/kafka';
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import type { ChannelCommandRecord } from '../channel/channel-command.ts';
import { POLICY_CACHE_TTL_MS } from '../channel/policy-cache.ts';
import type { PayloadStoreRegistry } from '../payload/payload-store.ts';
import { type ChannelCommandPublisher, createChannelCommandPublisher } from './command-publisher.ts';
import { type PublishQuota, type PublishQuotaMetrics, publishQuotaOf } from './publish-quota.ts';
import { createRedisPublishWaiter } from './publish-waiter.redis.ts';
import { createRealtimeHttp, type RealtimeHttp } from './realtime-http.ts';

/** The configuration the runtime reads (realtimeHttpSettingsOf); tests change fields of it. */
export interface RealtimeHttpSettings {
  gatewayUrls: Record<Environment, string>;
  redisKeyPrefix: string;
  kafkaTopicPrefix: string;
  /** How long a quota count may wait for Redis before the local limiter answers. */
  rateLimitRedisTimeoutMs: number;
  quota: PublishQuota;
  /** A publish not acknowledged by Kafka within this answers 503. */
  publishTimeoutMs: number;
  /** How long a namespace policy is cached for publishes and reads. */
  policyCacheTtlMs: number;
}

export function realtimeHttpSettingsOf(config: LatticeConfig): RealtimeHttpSettings {
  return {
    gatewayUrls: config.gatewayUrls,
    redisKeyPrefix: config.redisKeyPrefix,
    kafkaTopicPrefix: config.kafkaTopicPrefix,
    rateLimitRedisTimeoutMs: config.rateLimitRedisTimeoutMs,
    quota: publishQuotaOf(config.publishQuota),
    publishTimeoutMs: 10_000,
    policyCacheTtlMs: POLICY_CACHE_TTL_MS,
  };
}

export interface RealtimeHttpRuntimeDeps {
  db: Knex;
  logger: Logger;
  /** The platform's keyring (LATTICE_SECRET_KEYS): seals and opens the token signing keys. */
  keyring: SecretKeyring;
  /**
   * A command connection of its own (quota counts, Idempotency-Keys), which the caller owns.
   * Auto-pipelining is turned on for it: concurrent publishes' commands go out as one write.
   */
  redis: Redis;
  /**
   * A subscriber connection of its own, asked for on the first publish that waits for its offset
   * (`Prefer: return=representation`); the caller owns it.
   */
  subscriber: () => Redis;
  /** The client the Publish commands are produced with. */
  kafka: Kafka;
  /** Where keys go while topics are re-partitioned: the process's shared placement. */
  placement: PartitionPlacement;
  /** Which products may publish data over the inline cap, and where it is kept. */
  payloads: PayloadStoreRegistry;
  metrics: PublishQuotaMetrics;
  /** Observes each publish's `accepted_produced` stage (docs/architecture.md "Where the time goes"). */
  stages?: StageTimer<'realtime'>;
  clock: Clock;
  /** The timers of publishes waiting for their offset. Default systemScheduler. */
  scheduler?: Scheduler;
}

export interface RealtimeHttpRuntime {
  http: RealtimeHttp;
  commands: ChannelCommandPublisher;
  /**
   * Flushes and disconnects the producer and drops the waits' subscriptions; the Redis
   * connections stay their owner's.
   */
  close(): Promise<void>;
}

export function startRealtimeHttpRuntime(
  settings: RealtimeHttpSettings,
  deps: RealtimeHttpRuntimeDeps,
): RealtimeHttpRuntime {
  const { logger, kafka, redis } = deps;
  // Read per command by ioredis, so switching it on here applies from the next command.
  redis.options.enableAutoPipelining = true;
  const commands = createChannelCommandPublisher({
    producer: () => createRecordProducer(kafka, { placement: deps.placement, logger }),
    topic: topicName(settings.kafkaTopicPrefix, TOPIC_CATALOG.channelCommands.name),
    codec: loadCodec<ChannelCommandRecord>(TOPIC_CATALOG.channelCommands.schema),
    logger,
    timeoutMs: settings.publishTimeoutMs,
  });
  const waits = createRedisPublishWaiter({
    subscriber: deps.subscriber,
    keyPrefix: settings.redisKeyPrefix,
    logger,
  });
  const http = createRealtimeHttp({
    db: deps.db,
    logger,
    keyring: deps.keyring,
    gatewayUrls: settings.gatewayUrls,
    policyCacheTtlMs: settings.policyCacheTtlMs,
    clock: deps.clock,
    publishing: {
      redis,
      redisKeyPrefix: settings.redisKeyPrefix,
      quotaRedisTimeoutMs: settings.rateLimitRedisTimeoutMs,
      commands,
      payloads: deps.payloads,
      quota: settings.quota,
      metrics: deps.metrics,
      ...(deps.stages ? { stages: deps.stages } : {}),
      waits,
      ...(deps.scheduler ? { scheduler: deps.scheduler } : {}),
    },
  });
  return {
    http,
    commands,
    async close() {
      await Promise.all([commands.close(), waits.close()]);
    },
  };
}
