// The topic catalog: every topic Lattice uses, what keys it and which Avro record it carries.
// Topics are created explicitly (KRaft brokers run with auto-create off) before anyone
// subscribes; creation is idempotent.

import { type Logger, sleep } from '@lattice/core';
import type { Admin } from 'kafkajs';

/** kafkajs's ConfigResourceTypes.TOPIC, which Node's ESM loader does not see among its exports. */
const TOPIC_RESOURCE = 2;

export interface TopicSpec {
  /** Name without the deployment prefix. */
  name: string;
  /** Schema file stem in schemas/avro. */
  schema: string;
  /** What the record key is; all records of one key land on one partition, in order. */
  keyedBy: string;
}

export const TOPIC_CATALOG = {
  channelCommands: {
    name: 'realtime.channel-commands',
    schema: 'channel-command',
    keyedBy: 'product_id:environment:channel',
  },
  mailOutbound: { name: 'mail.outbound', schema: 'mail-outbound', keyedBy: 'email_id' },
  mailEvents: { name: 'mail.events', schema: 'mail-event', keyedBy: 'email_id' },
  webhookDeliveries: { name: 'mail.webhook-deliveries', schema: 'webhook-delivery', keyedBy: 'endpoint_id' },
  deadLetters: { name: 'lattice.dead-letters', schema: 'dead-letter', keyedBy: 'source topic' },
} as const satisfies Record<string, TopicSpec>;

export type TopicId = keyof typeof TOPIC_CATALOG;

export function topicName(prefix: string, name: string): string {
  return `${prefix}${name}`;
}

/** A replication factor, or 'cluster': follow the cluster's size (replicationForBrokers). */
export type ReplicationSetting = number | 'cluster';

export interface EnsureTopicsOptions {
  admin: Admin;
  names: string[];
  partitions: number;
  replicationFactor: ReplicationSetting;
  logger: Logger;
  leaderTimeoutMs?: number;
  /**
   * Topic configuration to hold, by topic name (the dead-letter topic's `retention.ms`): set at
   * creation, and set on an existing topic whose value differs.
   */
  topicConfigs?: Record<string, Record<string, string>>;
}

/**
 * What Lattice creates its topics with on a cluster of `brokers`: three copies where there are
 * three brokers or more, and an acks=all write needs two of them (min.insync.replicas), so losing
 * one broker loses no acknowledged record and refuses no write; losing two refuses writes
 * (publishes answer 503) rather than keep a single copy. Mirrors the broker defaults of
 * `lattice infra up --brokers N` (infra/src/kafka-properties.ts, clusterReplication).
 */
export function replicationForBrokers(brokers: number): { factor: number; minInsync: number } {
  const factor = Math.max(1, Math.min(3, brokers));
  return { factor, minInsync: minInsyncFor(factor) };
}

/** A majority-ish quorum for writes: 2 of 3 or more copies, 1 of fewer. */
export function minInsyncFor(factor: number): number {
  return factor >= 3 ? 2 : 1;
}

/** The replication factor and min.insync.replicas topics get, the cluster asked when 'cluster'. */
export async function resolveReplication(
  admin: Admin,
  setting: ReplicationSetting,
): Promise<{ factor: number; minInsync: number; brokers?: number }> {
  if (setting !== 'cluster') return { factor: setting, minInsync: minInsyncFor(setting) };
  const { brokers } = await admin.describeCluster();
  return { ...replicationForBrokers(brokers.length), brokers: brokers.length };
}

/** Polls metadata until every partition of the topics has a leader (unknown topics: not yet). */
export async function waitForTopicLeaders(admin: Admin, topics: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let lastProblem = 'no leader yet';
    try {
      const meta = await admin.fetchTopicMetadata({ topics });
      const ready =
        meta.topics.length === topics.length &&
        meta.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
      if (ready) return;
    } catch (err) {
      lastProblem = (err as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(`topics ${topics.join(', ')} have no leaders after ${timeoutMs} ms: ${lastProblem}`);
    await sleep(100);
  }
}

/**
 * Creates the missing topics and waits for their leaders. An existing topic with a different
 * partition count is reported, not changed: adding partitions moves keys between partitions and
 * needs the drain-and-switch procedure of docs/operations.md.
 */
export async function ensureTopics(opts: EnsureTopicsOptions): Promise<{ created: string[] }> {
  const existing = new Set(await opts.admin.listTopics());
  const missing = opts.names.filter((n) => !existing.has(n));
  let created: string[] = [];
  const replication = await resolveReplication(opts.admin, opts.replicationFactor);
  if (missing.length > 0) {
    // false when another process created them between our list and create: nothing to report.
    const didCreate = await opts.admin.createTopics({
      // kafkajs's own wait gives up on UNKNOWN_TOPIC_OR_PARTITION, which a freshly started KRaft
      // broker answers for a moment after creating a topic; waitForTopicLeaders tolerates it.
      waitForLeaders: false,
      topics: missing.map((topic) => ({
        topic,
        numPartitions: opts.partitions,
        replicationFactor: replication.factor,
        configEntries: [
          { name: 'min.insync.replicas', value: String(replication.minInsync) },
          ...Object.entries(opts.topicConfigs?.[topic] ?? {}).map(([name, value]) => ({ name, value })),
        ],
      })),
    });
    await waitForTopicLeaders(opts.admin, missing, opts.leaderTimeoutMs ?? 30_000);
    if (didCreate) {
      created = missing;
      opts.logger.info(
        {
          topics: missing,
          partitions: opts.partitions,
          replicationFactor: replication.factor,
          minInsyncReplicas: replication.minInsync,
          ...(replication.brokers === undefined ? {} : { brokers: replication.brokers }),
        },
        'created topics',
      );
    }
  }
  const others = opts.names.filter((n) => !created.includes(n));
  if (others.length > 0) {
    const meta = await opts.admin.fetchTopicMetadata({ topics: others });
    for (const t of meta.topics) {
      if (t.partitions.length !== opts.partitions) {
        opts.logger.warn(
          { topic: t.name, partitions: t.partitions.length, configured: opts.partitions },
          'topic partition count differs from configuration; see docs/operations.md',
        );
      }
      const replicas = t.partitions[0]?.replicas.length ?? 0;
      if (replicas !== replication.factor) {
        opts.logger.warn(
          { topic: t.name, replicationFactor: replicas, configured: replication.factor },
          'topic replication factor differs from configuration; see docs/operations.md',
        );
      }
    }
  }
  await holdTopicConfigs(opts, others);
  return { created };
}

/** Sets the wanted entries on existing topics that differ; other dynamic entries are kept. */
async function holdTopicConfigs(opts: EnsureTopicsOptions, topics: string[]): Promise<void> {
  const wanted = topics.filter((t) => opts.topicConfigs?.[t] !== undefined);
  if (wanted.length === 0) return;
  const described = await opts.admin.describeConfigs({
    includeSynonyms: false,
    resources: wanted.map((name) => ({ type: TOPIC_RESOURCE, name })),
  });
  for (const r of described.resources) {
    const want = opts.topicConfigs![r.resourceName]!;
    const differs = Object.entries(want).filter(
      ([name, value]) => r.configEntries.find((e) => e.configName === name)?.configValue !== value,
    );
    if (differs.length === 0) continue;
    // alterConfigs replaces every dynamic entry of the topic: send the ones it has along.
    const kept = r.configEntries
      .filter((e) => !e.isDefault && !e.readOnly && !(e.configName in want))
      .map((e) => ({ name: e.configName, value: e.configValue }));
    await opts.admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: TOPIC_RESOURCE,
          name: r.resourceName,
          configEntries: [...kept, ...Object.entries(want).map(([name, value]) => ({ name, value }))],
        },
      ],
    });
    opts.logger.info(
      { topic: r.resourceName, set: Object.fromEntries(differs) },
      'topic configuration updated',
    );
  }
}
