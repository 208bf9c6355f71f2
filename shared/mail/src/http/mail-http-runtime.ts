// The mail toolkit's HTTP services with their producers, for the roles that serve them (the
// edges and management of one process share one runtime, as for realtime). Producers connect on
// the first send (and again after a failed connect), so a role starts while Kafka comes up.
import type { Clock, LatticeConfig, Logger } from '@lattice/core';
import {
  createGroupCommitPublisher,
  createRecordProducer,
  type GroupCommitPublisher,
  TOPIC_CATALOG,
  topicName,
} from '@lattice/kafka';
import { createFallbackRateLimiter, createMemoryRateLimiter, createRedisRateLimiter } from '@lattice/redis';
import type { Db } from '@lattice/store';
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import {
  createEmailAcceptor,
  type EmailAcceptor,
  type SendingDomains,
  sendRatePolicy,
} from '../emails/email-acceptor.ts';
import { type MailOutboundRecord, mailOutboundCodec } from '../emails/outbound-record.ts';
import { createMailEventPublisher, type MailEventPublisher } from '../events/mail-event.ts';
import { createPostgresSuppressionStore } from '../suppression/suppression-store.postgres.ts';
import type { SuppressionStore } from '../suppression/suppression-store.ts';
import type { MailHttpMetrics } from './mail-http-metrics.ts';

/** The configuration the runtime reads (mailHttpSettingsOf); tests change fields of it. */
export interface MailHttpSettings {
  kafkaTopicPrefix: string;
  redisKeyPrefix: string;
  /** MAIL_SEND_RATE_PER_SECOND. */
  sendRatePerSecond: number;
  rateLimitRedisTimeoutMs: number;
  /** A send not acknowledged by Kafka within this answers 503. */
  queueTimeoutMs: number;
}

export function mailHttpSettingsOf(config: LatticeConfig): MailHttpSettings {
  return {
    kafkaTopicPrefix: config.kafkaTopicPrefix,
    redisKeyPrefix: config.redisKeyPrefix,
    sendRatePerSecond: config.mail.sendRatePerSecond,
    rateLimitRedisTimeoutMs: config.rateLimitRedisTimeoutMs,
    queueTimeoutMs: 10_000,
  };
}

export interface MailHttpRuntimeDeps {
  db: Db;
  logger: Logger;
  /** A command connection (send-rate counts), owned by the caller. */
  redis: Redis;
  kafka: Kafka;
  domains: SendingDomains;
  metrics: MailHttpMetrics;
  clock: Clock;
}

export interface MailHttpRuntime {
  emails: EmailAcceptor;
  suppressions: SuppressionStore;
  /** Events the HTTP side records (suppressed at accept, opens, clicks). */
  events: MailEventPublisher;
  /** Flushes and disconnects the producers; the Redis connection stays its owner's. */
  close(): Promise<void>;
}

export function startMailHttpRuntime(settings: MailHttpSettings, deps: MailHttpRuntimeDeps): MailHttpRuntime {
  const { logger, kafka, clock } = deps;
  const producer = () => createRecordProducer(kafka);
  const outbound: GroupCommitPublisher<MailOutboundRecord> = createGroupCommitPublisher({
    producer,
    topic: topicName(settings.kafkaTopicPrefix, TOPIC_CATALOG.mailOutbound.name),
    codec: mailOutboundCodec(),
    logger,
    timeoutMs: settings.queueTimeoutMs,
    what: 'mail.outbound records',
  });
  const events = createMailEventPublisher({
    producer,
    topic: topicName(settings.kafkaTopicPrefix, TOPIC_CATALOG.mailEvents.name),
    logger,
    timeoutMs: settings.queueTimeoutMs,
  });
  const policy = sendRatePolicy(settings.sendRatePerSecond);
  const sendRate = createFallbackRateLimiter({
    primary: createRedisRateLimiter({ redis: deps.redis, policy, keyPrefix: settings.redisKeyPrefix, clock }),
    local: createMemoryRateLimiter({ policy, clock }),
    logger,
    countFallback: () => deps.metrics.sendRateFallback(),
    timeoutMs: settings.rateLimitRedisTimeoutMs,
    clock,
  });
  const suppressions = createPostgresSuppressionStore(deps.db);
  const emails = createEmailAcceptor({
    db: deps.db,
    domains: deps.domains,
    suppressions,
    sendRate,
    outbound,
    events,
    clock,
    logger,
  });
  return {
    emails,
    suppressions,
    events,
    async close() {
      await Promise.all([outbound.close(), events.close()]);
    },
  };
}
