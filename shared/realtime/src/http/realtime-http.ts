// The realtime services both HTTP surfaces share (the public edge's realtime toolkit and the
// management API's realtime routes), composed from their dependencies. Without `publishing`
// (no Redis or Kafka given) tokens and reads work and publishes answer 503.
import type { Clock, Environment, Logger } from '@lattice/core';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { createNamespacePolicyCache, POLICY_CACHE_TTL_MS } from '../channel/policy-cache.ts';
import { createHistoryReader } from '../history/history-reader.ts';
import { createPostgresNamespaceRepository } from '../namespace-repository.postgres.ts';
import type { NamespaceRepository } from '../namespace-repository.ts';
import type { PayloadStoreRegistry } from '../payload/payload-store.ts';
import { createPresenceReader } from '../presence/presence-reader.ts';
import { createPostgresSigningKeyStore, type SigningKeyStore } from '../signing-key-store.ts';
import { type ChannelReads, createChannelReads } from './channel-reads.ts';
import type { ChannelCommandPublisher } from './command-publisher.ts';
import { createRedisIdempotencyStore, IDEMPOTENCY_TTL_MS } from './idempotency.ts';
import {
  createMessagePublisher,
  type MessagePublisher,
  UNCONFIGURED_MESSAGE_PUBLISHER,
} from './message-publisher.ts';
import {
  createPublishQuotaLimiter,
  DEFAULT_PUBLISH_QUOTA,
  type PublishQuota,
  type PublishQuotaMetrics,
} from './publish-quota.ts';
import { createTokenIssuer, type TokenIssuer } from './token-issuer.ts';

export interface RealtimePublishingDeps {
  /** Command connection: quota counters and Idempotency-Keys. The caller owns it. */
  redis: Redis;
  /** config.redisKeyPrefix. */
  redisKeyPrefix: string;
  commands: ChannelCommandPublisher;
  /** Which products may publish data over the inline cap (as a `ref`). */
  payloads: PayloadStoreRegistry;
  /** Default: the spec's (50/s sustained, 100 burst, 1100 hard per 10 s window). */
  quota?: PublishQuota;
  /** Default 5 minutes. */
  idempotencyTtlMs?: number;
  /** config.rateLimitRedisTimeoutMs, for the quota count. Default 250. */
  quotaRedisTimeoutMs?: number;
  /** Counts the quota's local answers and the publishes beyond its soft budget. */
  metrics: PublishQuotaMetrics;
}

export interface RealtimeHttpDeps {
  db: Knex;
  logger: Logger;
  /** config.gatewayUrls. */
  gatewayUrls: Record<Environment, string>;
  publishing?: RealtimePublishingDeps;
  /** How long a namespace policy is cached for publishes and reads. Default 5000. */
  policyCacheTtlMs?: number;
  clock?: Clock;
}

export interface RealtimeHttp {
  namespaces: NamespaceRepository;
  signingKeys: SigningKeyStore;
  tokens: TokenIssuer;
  messages: MessagePublisher;
  reads: ChannelReads;
  /** The quota in force (for documentation and headers); null when publishing is not configured. */
  quota: PublishQuota | null;
}

export function createRealtimeHttp(deps: RealtimeHttpDeps): RealtimeHttp {
  const clock = deps.clock ? { clock: deps.clock } : {};
  const namespaces = createPostgresNamespaceRepository(deps.db);
  const signingKeys = createPostgresSigningKeyStore(deps.db);
  const policies = createNamespacePolicyCache({
    repository: namespaces,
    ttlMs: deps.policyCacheTtlMs ?? POLICY_CACHE_TTL_MS,
    ...clock,
  });
  const p = deps.publishing;
  const quota = p ? (p.quota ?? DEFAULT_PUBLISH_QUOTA) : null;
  const messages = p
    ? createMessagePublisher({
        policies,
        payloads: p.payloads,
        quota: createPublishQuotaLimiter({
          redis: p.redis,
          keyPrefix: p.redisKeyPrefix,
          quota: quota!,
          logger: deps.logger,
          ...(p.quotaRedisTimeoutMs === undefined ? {} : { redisTimeoutMs: p.quotaRedisTimeoutMs }),
          ...clock,
          metrics: p.metrics,
        }),
        idempotency: createRedisIdempotencyStore({
          redis: p.redis,
          keyPrefix: p.redisKeyPrefix,
          ttlMs: p.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS,
        }),
        commands: p.commands,
        logger: deps.logger,
        ...clock,
      })
    : UNCONFIGURED_MESSAGE_PUBLISHER;
  return {
    namespaces,
    signingKeys,
    tokens: createTokenIssuer({ namespaces, signingKeys, gatewayUrls: deps.gatewayUrls, ...clock }),
    messages,
    reads: createChannelReads({
      history: createHistoryReader({ db: deps.db, policies }),
      presence: createPresenceReader({ db: deps.db, policies }),
      logger: deps.logger,
      ...clock,
    }),
    quota,
  };
}
