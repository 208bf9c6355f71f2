// The `actors` role (`lattice start actors`): the partition actor hosts with the channel actor
// kind, the email-state actor kind and the mail sender, and the realtime and mail maintenance jobs
// beside them. It listens on no port but its metrics one (ACTORS_PORT), so any number of actors
// processes run side by side; the inbound SMTP receiver of bounces and complaints is a role of its
// own (services/inbound).
import type {
  Clock,
  Environment,
  LatticeConfig,
  Logger,
  RetentionConfig,
  Role,
  RunningRole,
  SecretKeyring,
} from '@lattice/core';
import type { PartitionPlacement } from '@lattice/kafka';
import {
  createPostgresDomainStore,
  createTargetGuard,
  createTrackingLinks,
  createWebhookRequester,
  emailLinksOf,
} from '@lattice/mail';
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import { type ActorHostSettings, startActorsRole } from './actors-role.ts';
import { channelActorRegistration, realtimeJobs } from './channel-actors.ts';
import { emailStateRegistration } from './email-state-actors.ts';
import { type MailSenderSettings, mailSender } from './mail-sender-actors.ts';
import { retentionJobs } from './retention-jobs.ts';
import { type WebhookDeliverySettings, webhookDelivery } from './webhook-actors.ts';

/** How often each actors host looks for due webhook deliveries no wake record reached. */
const WEBHOOK_WAKE_SWEEP_INTERVAL_MS = 5_000;

/** The configuration the role reads; tests change fields of it. */
export interface ActorsSettings extends ActorHostSettings {
  /** Fan-out channels are `<prefix>rt:<product>:<env>:<channel>`. */
  redisKeyPrefix: string;
  historyPurgeIntervalMs: number;
  /** A quiet channel's expired presence entry leaves within about this. */
  presenceSweepIntervalMs: number;
  /**
   * The products the maintenance jobs look at; null: every product. Tests sharing a database
   * name their own (or none).
   */
  maintenanceProductIds: readonly string[] | null;
  /** The mail sender: smart host, retries, sweeps. */
  mail: MailSenderSettings;
  /** Tracking and unsubscribe links point at the edge of the environment that accepted the send. */
  publicUrls: Record<Environment, string>;
  /** Webhook delivery: schedule, attempt limit, private targets, the wake sweep. */
  webhooks: WebhookDeliverySettings & { timeoutMs: number; allowPrivateTargets: boolean };
  /** How long deliveries, emails and their events are kept; how the purges run. */
  retention: RetentionConfig;
}

export function actorsSettingsOf(config: LatticeConfig): ActorsSettings {
  return {
    kafkaTopicPrefix: config.kafkaTopicPrefix,
    kafkaPartitions: config.kafkaPartitions,
    kafkaReplicationFactor: config.kafkaReplicationFactor,
    sessionTimeoutMs: config.actorsSessionTimeoutMs,
    metadataMaxAgeMs: config.actorsMetadataMaxAgeMs,
    partitionsConcurrency: config.actorsPartitionsConcurrency,
    redisKeyPrefix: config.redisKeyPrefix,
    historyPurgeIntervalMs: 600_000,
    presenceSweepIntervalMs: 5_000,
    maintenanceProductIds: null,
    mail: {
      smtpUrl: config.smtpUrl,
      smtpMaxConnections: config.mail.smtpMaxConnections,
      retryDelaysMs: config.mail.retryDelaysMs,
      retrySweepIntervalMs: 1_000,
      orphanSweepIntervalMs: 30_000,
      orphanGraceMs: 120_000,
    },
    publicUrls: config.publicUrls,
    webhooks: {
      retryDelaysMs: config.webhooks.retryDelaysMs,
      timeoutMs: config.webhooks.timeoutMs,
      allowPrivateTargets: config.webhooks.allowPrivateTargets ?? false,
      wakeSweepIntervalMs: WEBHOOK_WAKE_SWEEP_INTERVAL_MS,
    },
    retention: config.retention,
  };
}

/** What the actors role takes from the process that runs it. */
export interface ActorsShared {
  db: Knex;
  logger: Logger;
  registry: Registry;
  clock: Clock;
  /** The process's connection of this name, opened on first use and closed by its owner. */
  redis(name: string): Redis;
  /** The process's Kafka client of this name (client id). */
  kafka(name: string): Kafka;
  /** The process's partition placement (one per process: it is one producer to the scaling procedure). */
  placement(): PartitionPlacement;
  /** Opens the DKIM keys' seals and signs tracking links. */
  secretKeys: SecretKeyring;
}

export const actorsRole: Role<ActorsSettings, ActorsShared> = {
  name: 'actors',
  metricsPortOf: (config) => config.actorsPort,
  configOf: actorsSettingsOf,
  async start(settings, shared) {
    const { db, logger, clock } = shared;
    const productScope = settings.maintenanceProductIds ? { productIds: settings.maintenanceProductIds } : {};
    const sender = mailSender(settings.mail, {
      kafkaTopicPrefix: settings.kafkaTopicPrefix,
      db,
      kafka: shared.kafka('actors-mail'),
      placement: shared.placement(),
      logger,
      registry: shared.registry,
      clock,
      keys: createPostgresDomainStore(db, { keyring: shared.secretKeys, clock }),
      links: emailLinksOf(
        createTrackingLinks({ keyring: shared.secretKeys, publicUrls: settings.publicUrls }),
      ),
      ...productScope,
    });
    const webhooks = webhookDelivery(settings.webhooks, {
      kafkaTopicPrefix: settings.kafkaTopicPrefix,
      db,
      kafka: shared.kafka('actors-webhooks'),
      placement: shared.placement(),
      logger,
      registry: shared.registry,
      keyring: shared.secretKeys,
      poster: createWebhookRequester({
        guard: createTargetGuard({ allowPrivateTargets: settings.webhooks.allowPrivateTargets }),
        timeoutMs: settings.webhooks.timeoutMs,
      }),
      ...productScope,
    });
    const hosts = await startActorsRole({
      settings,
      kafka: shared.kafka('actors'),
      placement: shared.placement(),
      logger,
      registry: shared.registry,
      kinds: [
        channelActorRegistration({
          db,
          // A command connection: fan-out PUBLISHes on it.
          redis: shared.redis('actors'),
          logger,
          redisKeyPrefix: settings.redisKeyPrefix,
          clock,
          registry: shared.registry,
        }),
        emailStateRegistration({ db, logger, registry: shared.registry }),
        sender.registration,
        webhooks.fanout,
        webhooks.endpoints,
      ],
      jobs: [
        ...realtimeJobs({
          db,
          logger,
          clock,
          historyPurgeIntervalMs: settings.historyPurgeIntervalMs,
          presenceSweepIntervalMs: settings.presenceSweepIntervalMs,
          ...productScope,
        }),
        ...sender.jobs,
        ...webhooks.jobs,
        ...retentionJobs({
          db,
          clock,
          logger,
          registry: shared.registry,
          settings: settings.retention,
          ...productScope,
        }),
      ],
    });
    const running: RunningRole = {
      close: async () => {
        await hosts.stop();
        await sender.close();
        await webhooks.close();
      },
      health: () =>
        hosts.healthy() ? { ok: true } : { ok: false, reason: 'an actor host stopped consuming' },
    };
    return running;
  },
};
