// The topic catalog: every topic Lattice uses, what keys it and which Avro record it carries.
// Topics are created explicitly (KRaft brokers run with auto-create off) before anyone
// subscribes; creation is idempotent.

import { type Logger, sleep } from '@lattice/core';
import type { Admin } from 'kafkajs';

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

export interface EnsureTopicsOptions {
  admin: Admin;
  names: string[];
  partitions: number;
  replicationFactor: number;
  logger: Logger;
  leaderTimeoutMs?: number;
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
  if (missing.length > 0) {
    // false when another process created them between our list and create: nothing to report.
    const didCreate = await opts.admin.createTopics({
      // kafkajs's own wait gives up on UNKNOWN_TOPIC_OR_PARTITION, which a freshly started KRaft
      // broker answers for a moment after creating a topic; waitForTopicLeaders tolerates it.
      waitForLeaders: false,
      topics: missing.map((topic) => ({
        topic,
        numPartitions: opts.partitions,
        replicationFactor: opts.replicationFactor,
      })),
    });
    await waitForTopicLeaders(opts.admin, missing, opts.leaderTimeoutMs ?? 30_000);
    if (didCreate) {
      created = missing;
      opts.logger.info({ topics: missing, partitions: opts.partitions }, 'created topics');
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
    }
  }
  return { created };
}
