// The actor hosts of the `actors` role (role.ts composes it): creates the catalog topics, then
// runs one partition actor host per registered actor kind. Kinds arrive with their toolkits
// (channel actors, webhook endpoint actors, the mail sender); each declares its topic, codec and
// consumer group.

import {
  type LatticeConfig,
  type Logger,
  type RetentionConfig,
  type Scheduler,
  systemScheduler,
} from '@lattice/core';
import {
  type ActorHost,
  type ActorKind,
  type Codec,
  createActorHost,
  createKafkaDeadLetterSink,
  createRecordProducer,
  type DeadLetter,
  ensureTopics,
  loadCodec,
  type PartitionPlacement,
  TOPIC_CATALOG,
  topicName,
} from '@lattice/kafka';
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { type PeriodicJob, startPeriodicJobs } from './periodic-jobs.ts';

export interface ActorKindRegistration<C> {
  /** Topic name without prefix, from TOPIC_CATALOG. */
  topic: string;
  codec: Codec<C>;
  kind: ActorKind<C>;
  /** Called with the host's partitions of the topic after every group join. */
  onAssignment?: (partitions: number[]) => void;
  /**
   * Commit applied offsets together at most this often instead of after each batch (the host's
   * commitIntervalMs): only for kinds whose replays are harmless.
   */
  commitIntervalMs?: number;
  /** The flow whose `produced_fetched` stage the host observes for this topic (actor host's stageFlow). */
  stageFlow?: 'realtime' | 'mail';
}

/** The topic settings the hosts and the catalog topics are made with. */
export type KafkaTopicSettings = Pick<
  LatticeConfig,
  'kafkaTopicPrefix' | 'kafkaPartitions' | 'kafkaReplicationFactor'
> & {
  /** The dead-letter topic keeps records this many days (its retention.ms); default the broker's. */
  retention?: Pick<RetentionConfig, 'deadLetterDays'>;
};

/** The hosts' consumer-group settings. */
export interface ActorHostSettings extends KafkaTopicSettings {
  /** ACTORS_SESSION_TIMEOUT_MS. */
  sessionTimeoutMs: number;
  /** ACTORS_METADATA_MAX_AGE_MS; default 30 s. */
  metadataMaxAgeMs?: number;
  /** ACTORS_PARTITIONS_CONCURRENCY; default the host's (4). */
  partitionsConcurrency?: number;
}

export interface ActorsRoleOptions {
  settings: ActorHostSettings;
  kafka: Kafka;
  /** Where keys go while topics are re-partitioned: the process's shared placement. */
  placement: PartitionPlacement;
  logger: Logger;
  registry: Registry;
  // biome-ignore lint/suspicious/noExplicitAny: registrations of different command types live in one list
  kinds: ActorKindRegistration<any>[];
  /** Maintenance run beside the hosts (`realtimeJobs(...)`). */
  jobs: PeriodicJob[];
  /** Retry waits of the hosts and the jobs' timers. Default systemScheduler. */
  scheduler?: Scheduler;
}

export interface ActorsRole {
  stop(): Promise<void>;
  /** False once any host's consumer crashed for good; `/healthz` reports it. */
  healthy(): boolean;
}

export function catalogTopicNames(prefix: string): string[] {
  return Object.values(TOPIC_CATALOG).map((t) => topicName(prefix, t.name));
}

export async function createCatalogTopics(
  settings: KafkaTopicSettings,
  kafka: Kafka,
  logger: Logger,
): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { created } = await ensureTopics({
      admin,
      names: catalogTopicNames(settings.kafkaTopicPrefix),
      partitions: settings.kafkaPartitions,
      replicationFactor: settings.kafkaReplicationFactor,
      logger,
      ...(settings.retention
        ? {
            topicConfigs: {
              [topicName(settings.kafkaTopicPrefix, TOPIC_CATALOG.deadLetters.name)]: {
                'retention.ms': String(settings.retention.deadLetterDays * 86_400_000),
              },
            },
          }
        : {}),
    });
    return created;
  } finally {
    await admin.disconnect();
  }
}

export async function startActorsRole(opts: ActorsRoleOptions): Promise<ActorsRole> {
  const { settings, kafka, logger } = opts;
  const scheduler = opts.scheduler ?? systemScheduler;
  await createCatalogTopics(settings, kafka, logger);
  const producer = await createRecordProducer(kafka, { placement: opts.placement, logger });
  const deadLetters = createKafkaDeadLetterSink(
    producer,
    topicName(settings.kafkaTopicPrefix, TOPIC_CATALOG.deadLetters.name),
    loadCodec<DeadLetter>(TOPIC_CATALOG.deadLetters.schema),
  );
  const hosts: ActorHost[] = [];
  for (const reg of opts.kinds) {
    const topic = topicName(settings.kafkaTopicPrefix, reg.topic);
    const host = createActorHost({
      kafka,
      groupId: `${settings.kafkaTopicPrefix}lattice-actors.${reg.kind.name}`,
      topic,
      codec: reg.codec,
      kind: reg.kind,
      deadLetters,
      logger,
      registry: opts.registry,
      scheduler,
      sessionTimeoutMs: settings.sessionTimeoutMs,
      ...(settings.metadataMaxAgeMs === undefined ? {} : { metadataMaxAgeMs: settings.metadataMaxAgeMs }),
      ...(settings.partitionsConcurrency === undefined
        ? {}
        : { partitionsConcurrency: settings.partitionsConcurrency }),
      // Heartbeats at a tenth of the session, as Kafka advises at most a third.
      heartbeatIntervalMs: Math.max(1_000, Math.floor(settings.sessionTimeoutMs / 10)),
      ...(reg.onAssignment ? { onAssignment: reg.onAssignment } : {}),
      ...(reg.commitIntervalMs === undefined ? {} : { commitIntervalMs: reg.commitIntervalMs }),
      ...(reg.stageFlow ? { stageFlow: reg.stageFlow } : {}),
    });
    await host.start();
    hosts.push(host);
  }
  const jobs = startPeriodicJobs(
    opts.jobs,
    { producer, topicPrefix: settings.kafkaTopicPrefix },
    logger,
    scheduler,
  );
  logger.info({ kinds: opts.kinds.map((k) => k.kind.name) }, 'actors role started');
  return {
    async stop() {
      await jobs.stop();
      await Promise.all(hosts.map((h) => h.stop()));
      await producer.disconnect();
    },
    healthy: () => hosts.every((h) => h.healthy()),
  };
}
