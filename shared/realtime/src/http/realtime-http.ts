// The realtime services both HTTP surfaces share (the public edge's realtime toolkit and the
// management API's realtime routes), composed from their dependencies.
import type { Clock, Environment, Logger, Scheduler, SecretKeyring } from '@lattice/core';
import type { StageTimer } from '@lattice/kafka';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { createNamespacePolicyCache, type NamespacePolicyLookup } from '../channel/policy-cache.ts';
import { createHistoryReader } from '../history/history-reader.ts';
import { createPostgresNamespaceRepository } from '../namespace-repository.postgres.ts';
import type { NamespaceRepository } from '../namespace-repository.ts';
import type { PayloadStoreRegistry } from '../payload/payload-store.ts';
import { createPresenceReader } from '../presence/presence-reader.ts';
import { createPostgresSigningKeyStore, type SigningKeyStore } from '../signing-key-store.ts';
import { type ChannelReads, createChannelReads } from './channel-reads.ts';
import type { ChannelCommandPublisher } from './command-publisher.ts';
import { createRedisIdempotencyStore, IDEMPOTENCY_TTL_MS } from './idempotency.ts';
import { createMessagePublisher, type MessagePublisher } from './message-publisher.ts';
import { createPublishQuotaLimiter, type PublishQuota, type PublishQuotaMetrics } from './publish-quota.ts';
import type { PublishWaiter } from './publish-waiter.ts';
import { createTokenIssuer, type TokenIssuer } from './token-issuer.ts';

export interface RealtimePublishingDeps {
  /** Command connection: quota counters and Idempotency-Keys. The caller owns it. */
  redis: Redis;
  /** config.redisKeyPrefix. */
  redisKeyPrefix: string;
  commands: ChannelCommandPublisher;
  /** Which products may publish data over the inline cap (as a `ref`). */
  payloads: PayloadStoreRegistry;
  /** The deployment's quota (publishQuotaOf(config.publishQuota)). */
  quota: PublishQuota;
  /** Default 5 minutes. */
  idempotencyTtlMs?: number;
  /** config.rateLimitRedisTimeoutMs, for the quota count. */
  quotaRedisTimeoutMs: number;
  /** Counts the quota's local answers and the publishes beyond its soft budget. */
  metrics: PublishQuotaMetrics;
  /** Observes each publish's `accepted_produced` stage. */
  stages?: StageTimer<'realtime'>;
  /** Publishes that prefer `return=representation` wait with it; without it they answer 202. */
  waits?: PublishWaiter;
  /** The waits' timers. Default systemScheduler. */
  scheduler?: Scheduler;
}

export interface RealtimeHttpDeps {
  db: Knex;
  logger: Logger;
  /** The platform's keyring: seals and opens the token signing keys. */
  keyring: SecretKeyring;
  /** config.gatewayUrls. */
  gatewayUrls: Record<Environment, string>;
  publishing: RealtimePublishingDeps;
  /** How long a namespace policy is cached for publishes and reads. */
  policyCacheTtlMs: number;
  clock: Clock;
}

export interface RealtimeHttp {
  namespaces: NamespaceRepository;
  /**
   * Namespace policies as publishes and reads see them: read at most once per policyCacheTtlMs
   * (5 s by default), so a change reaches every user of it within that. The gateway checks client
   * events and presence actions against it (docs/realtime.md "The gateway": within 10 s).
   */
  policies: NamespacePolicyLookup;
  signingKeys: SigningKeyStore;
  tokens: TokenIssuer;
  messages: MessagePublisher;
  reads: ChannelReads;
  /** The quota in force (for documentation and headers). */
  quota: PublishQuota;
}

export function createRealtimeHttp(deps: RealtimeHttpDeps): RealtimeHttp {
  const p = deps.publishing;
  const publisher = (policies: NamespacePolicyLookup) =>
    createMessagePublisher({
      policies,
      payloads: p.payloads,
      quota: createPublishQuotaLimiter({
        redis: p.redis,
        keyPrefix: p.redisKeyPrefix,
        quota: p.quota,
        logger: deps.logger,
        redisTimeoutMs: p.quotaRedisTimeoutMs,
        clock: deps.clock,
        metrics: p.metrics,
      }),
      idempotency: createRedisIdempotencyStore({
        redis: p.redis,
        keyPrefix: p.redisKeyPrefix,
        ttlMs: p.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS,
      }),
      commands: p.commands,
      logger: deps.logger,
      clock: deps.clock,
      ...(p.stages ? { stages: p.stages } : {}),
      ...(p.waits ? { waits: p.waits } : {}),
      ...(p.scheduler ? { scheduler: p.scheduler } : {}),
    });
  return composeRealtimeHttp(deps, publisher, p.quota);
}

/** Everything but publishing, which `messages` builds over the same policy cache. */
export function composeRealtimeHttp(
  deps: Omit<RealtimeHttpDeps, 'publishing'>,
  messages: (policies: NamespacePolicyLookup) => MessagePublisher,
  quota: PublishQuota,
): RealtimeHttp {
  const { clock } = deps;
  const namespaces = createPostgresNamespaceRepository(deps.db);
  const signingKeys = createPostgresSigningKeyStore(deps.db, { keyring: deps.keyring });
  const policies = createNamespacePolicyCache({
    repository: namespaces,
    ttlMs: deps.policyCacheTtlMs,
    clock,
  });
  return {
    namespaces,
    policies,
    signingKeys,
    tokens: createTokenIssuer({ namespaces, signingKeys, gatewayUrls: deps.gatewayUrls, clock }),
    messages: messages(policies),
    reads: createChannelReads({
      history: createHistoryReader({ db: deps.db, policies }),
      presence: createPresenceReader({ db: deps.db, policies }),
      logger: deps.logger,
      clock,
    }),
    quota,
  };
}
