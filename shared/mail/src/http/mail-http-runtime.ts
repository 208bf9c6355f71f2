// The mail toolkit's HTTP services with their producers, for the roles that serve them (the
// edges and management of one process share one runtime, as for realtime). Producers connect on
// the first send (and again after a failed connect), so a role starts while Kafka comes up.
import { type Clock, errorMessage, type LatticeConfig, type Logger, type SecretKeyring } from '@lattice/core';
import {
  createGroupCommitPublisher,
  createRecordProducer,
  type GroupCommitPublisher,
  type PartitionPlacement,
  TOPIC_CATALOG,
  topicName,
} from '@lattice/kafka';
import { createFallbackRateLimiter, createMemoryRateLimiter, createRedisRateLimiter } from '@lattice/redis';
import type { Db } from '@lattice/store';
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { createPostgresDomainStore } from '../domains/domain-store.postgres.ts';
import {
  createEmailAcceptor,
  type EmailAcceptor,
  type SendingDomains,
  sendRatePolicy,
} from '../emails/email-acceptor.ts';
import { readEmail } from '../emails/email-reader.ts';
import { type MailOutboundRecord, mailOutboundCodec } from '../emails/outbound-record.ts';
import { createMailEventPublisher, type MailEventPublisher } from '../events/mail-event.ts';
import { MAIL_ERRORS } from '../mail-errors.ts';
import { mailStages } from '../mail-stages.ts';
import { createPostgresSuppressionStore } from '../suppression/suppression-store.postgres.ts';
import type { SuppressionStore } from '../suppression/suppression-store.ts';
import { createTrackingHandlers } from '../tracking/tracking-handlers.ts';
import { trackingMetrics } from '../tracking/tracking-metrics.ts';
import { createWebhookWakePublisher, type WebhookWakePublisher } from '../webhooks/webhook-wake.ts';
import type { MailHttp } from './mail-http.ts';
import { mailHttpMetrics } from './mail-http-metrics.ts';

/** The configuration the runtime reads (mailHttpSettingsOf); tests change fields of it. */
export interface MailHttpSettings {
  kafkaTopicPrefix: string;
  redisKeyPrefix: string;
  /** MAIL_SEND_RATE_PER_SECOND. */
  sendRatePerSecond: number;
  rateLimitRedisTimeoutMs: number;
  /** A send not acknowledged by Kafka within this answers 503. */
  queueTimeoutMs: number;
  /** An open or click event not acknowledged within this is counted lost; the answer goes out. */
  trackingEventTimeoutMs: number;
  /** A webhook wake not acknowledged within this is logged; the operator's answer goes out. */
  webhookWakeTimeoutMs: number;
}

export function mailHttpSettingsOf(config: LatticeConfig): MailHttpSettings {
  return {
    kafkaTopicPrefix: config.kafkaTopicPrefix,
    redisKeyPrefix: config.redisKeyPrefix,
    sendRatePerSecond: config.mail.sendRatePerSecond,
    rateLimitRedisTimeoutMs: config.rateLimitRedisTimeoutMs,
    queueTimeoutMs: 10_000,
    trackingEventTimeoutMs: 1_000,
    webhookWakeTimeoutMs: 2_000,
  };
}

export interface MailHttpRuntimeDeps {
  db: Db;
  logger: Logger;
  /** A command connection (send-rate counts), owned by the caller. */
  redis: Redis;
  kafka: Kafka;
  /** Where keys go while topics are re-partitioned: the process's shared placement. */
  placement: PartitionPlacement;
  /** Opens the domains' DKIM keys' seals (the runtime reads verified domains) and signs links. */
  keyring: SecretKeyring;
  registry: Registry;
  clock: Clock;
}

export interface MailHttpRuntime {
  http: MailHttp;
  emails: EmailAcceptor;
  suppressions: SuppressionStore;
  /** Events the HTTP side records (suppressed at accept, opens, clicks). */
  events: MailEventPublisher;
  /** Wakes of endpoint actors after management's webhook operator actions. */
  webhookWakes: WebhookWakePublisher;
  /** Flushes and disconnects the producers; the Redis connection stays its owner's. */
  close(): Promise<void>;
}

export function startMailHttpRuntime(settings: MailHttpSettings, deps: MailHttpRuntimeDeps): MailHttpRuntime {
  const { logger, kafka, clock } = deps;
  const producer = () => createRecordProducer(kafka, { placement: deps.placement, logger });
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
  const metrics = mailHttpMetrics(deps.registry);
  const domains: SendingDomains = createPostgresDomainStore(deps.db, { keyring: deps.keyring, clock });
  const policy = sendRatePolicy(settings.sendRatePerSecond);
  const sendRate = createFallbackRateLimiter({
    primary: createRedisRateLimiter({ redis: deps.redis, policy, keyPrefix: settings.redisKeyPrefix, clock }),
    local: createMemoryRateLimiter({ policy, clock }),
    logger,
    countFallback: () => metrics.sendRateFallback(),
    timeoutMs: settings.rateLimitRedisTimeoutMs,
    clock,
  });
  const suppressions = createPostgresSuppressionStore(deps.db);
  const emails = createEmailAcceptor({
    db: deps.db,
    domains,
    suppressions,
    sendRate,
    outbound,
    events,
    clock,
    logger,
    stages: mailStages(deps.registry),
  });
  // Opens and clicks answer a recipient's mail client, which must not wait the send path's 10 s
  // for Kafka: their events get a second of it, then the pixel or redirect goes out and the
  // loss is counted.
  const trackingEvents = createMailEventPublisher({
    producer,
    topic: topicName(settings.kafkaTopicPrefix, TOPIC_CATALOG.mailEvents.name),
    logger,
    timeoutMs: settings.trackingEventTimeoutMs,
  });
  // The delivery row is the truth and the actors' wake sweep finds it without a wake, so an
  // operator's answer waits for Kafka only briefly.
  const webhookWakes = createWebhookWakePublisher({
    producer,
    topic: topicName(settings.kafkaTopicPrefix, TOPIC_CATALOG.webhookDeliveries.name),
    logger,
    timeoutMs: settings.webhookWakeTimeoutMs,
  });
  const trackingHandlers = createTrackingHandlers({
    keyring: deps.keyring,
    events: trackingEvents,
    suppressions,
    clock,
    logger,
    metrics: trackingMetrics(deps.registry),
  });
  const http: MailHttp = {
    emails: {
      send: (input) => emails.send(input),
      get: async (productId, id) => {
        const email = await readEmail(deps.db, productId, id).catch((err: unknown) => {
          logger.warn({ err: errorMessage(err) }, 'reading an email failed');
          throw MAIL_ERRORS.emailUnavailable();
        });
        if (!email) throw MAIL_ERRORS.emailNotFound();
        return email;
      },
    },
    trackingHandlers,
    webhookWakes,
  };
  return {
    http,
    emails,
    suppressions,
    events,
    webhookWakes,
    async close() {
      await Promise.all([outbound.close(), events.close(), trackingEvents.close(), webhookWakes.close()]);
    },
  };
}
