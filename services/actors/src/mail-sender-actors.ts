// The mail sender part of the actors role: the sender actor kind on `mail.outbound` (one pooled
// SMTP transport per process, to SMTP_URL), and its sweeps (due retries, orphaned accepts).
import { type Clock, type Logger, type Scheduler, systemScheduler } from '@lattice/core';
import { createRecordProducer, type PartitionPlacement, TOPIC_CATALOG, topicName } from '@lattice/kafka';
import {
  createMailEventPublisher,
  createMessageBuilder,
  createPostgresSenderStore,
  createSenderSweeps,
  createSmtpTransport,
  type EmailLinks,
  type MailEventPublisher,
  type MailOutboundRecord,
  type MailTransport,
  mailEventCodec,
  mailOutboundCodec,
  mailSenderActorKind,
  mailStages,
  type SigningKeys,
  senderMetrics,
} from '@lattice/mail';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import type { ActorKindRegistration } from './actors-role.ts';
import type { PeriodicJob } from './periodic-jobs.ts';

/** The configuration the sender reads; tests change fields of it. */
export interface MailSenderSettings {
  smtpUrl: string;
  smtpMaxConnections: number;
  retryDelaysMs: number[];
  /** How often due retries are queued. */
  retrySweepIntervalMs: number;
  /** How often accepted-but-unqueued emails are looked for, and how old they must be. */
  orphanSweepIntervalMs: number;
  orphanGraceMs: number;
}

export interface MailSenderDeps {
  /** The role's (config.kafkaTopicPrefix). */
  kafkaTopicPrefix: string;
  db: Knex;
  kafka: Kafka;
  /** Where keys go while topics are re-partitioned: the process's shared placement. */
  placement: PartitionPlacement;
  logger: Logger;
  registry: Registry;
  clock: Clock;
  keys: SigningKeys;
  links: EmailLinks;
  /** Waits between tries of storing a result. Default systemScheduler. */
  scheduler?: Scheduler;
  /** Limit the sweeps to these products (tests sharing a database); default every product. */
  productIds?: readonly string[];
}

export interface MailSender {
  registration: ActorKindRegistration<MailOutboundRecord>;
  jobs: PeriodicJob[];
  close(): Promise<void>;
}

export function mailSender(settings: MailSenderSettings, deps: MailSenderDeps): MailSender {
  const { db, logger, clock } = deps;
  const transport: MailTransport = createSmtpTransport({
    url: settings.smtpUrl,
    maxConnections: settings.smtpMaxConnections,
  });
  const events: MailEventPublisher = createMailEventPublisher({
    producer: () => createRecordProducer(deps.kafka, { placement: deps.placement, logger }),
    topic: topicName(deps.kafkaTopicPrefix, TOPIC_CATALOG.mailEvents.name),
    logger,
  });
  const kind = mailSenderActorKind({
    store: createPostgresSenderStore(db),
    transport,
    build: createMessageBuilder({ keys: deps.keys, links: deps.links, logger }),
    events,
    retryDelaysMs: settings.retryDelaysMs,
    metrics: senderMetrics(deps.registry),
    clock,
    scheduler: deps.scheduler ?? systemScheduler,
    logger,
    stages: mailStages(deps.registry),
  });
  let sweeps: ReturnType<typeof createSenderSweeps> | undefined;
  const sweepsOf = (producer: Parameters<typeof createSenderSweeps>[0]['producer'], prefix: string) =>
    (sweeps ??= createSenderSweeps({
      db,
      clock,
      producer,
      outboundTopic: topicName(prefix, TOPIC_CATALOG.mailOutbound.name),
      outboundCodec: mailOutboundCodec(),
      eventsTopic: topicName(prefix, TOPIC_CATALOG.mailEvents.name),
      eventsCodec: mailEventCodec(),
      orphanGraceMs: settings.orphanGraceMs,
      ...(deps.productIds ? { productIds: deps.productIds } : {}),
    }));
  return {
    registration: {
      topic: TOPIC_CATALOG.mailOutbound.name,
      codec: mailOutboundCodec(),
      kind,
      stageFlow: 'mail',
    },
    jobs: [
      {
        name: 'mail-retries',
        intervalMs: settings.retrySweepIntervalMs,
        run: async ({ producer, topicPrefix }) => {
          await sweepsOf(producer, topicPrefix).retries();
        },
      },
      {
        name: 'mail-orphans',
        intervalMs: settings.orphanSweepIntervalMs,
        run: async ({ producer, topicPrefix }) => {
          await sweepsOf(producer, topicPrefix).orphans();
        },
      },
    ],
    async close() {
      await events.close();
      transport.close();
    },
  };
}
