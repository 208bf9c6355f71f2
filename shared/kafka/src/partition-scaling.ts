// Growing a topic's partition count while the platform runs: the drain-and-switch procedure of
// docs/operations.md. Producers place keys by the topic's plan (partition-placement.planned.ts),
// so added partitions stay empty until the plan switches, and the switch waits until no key can
// still have a record on its old partition:
//   1. plan {from, active}: every live producer acknowledges it (they place by it from now on);
//   2. add the partitions; wait until every consumer group of the topic has been assigned all of
//      them (a rebalance, which also makes every host rehydrate its actors);
//   3. plan {from, draining}: every live producer acknowledges, so none sends and none has a
//      send in flight;
//   4. wait until every group has committed the old partitions' end offsets: everything placed
//      by the old count is applied;
//   5. plan {to, active}: producers resume, placing by the new count.
// Sends held in step 3 wait (bounded by the producers' hold timeout, then 503 with Retry-After),
// so a drain that takes long costs refused publishes, never misplaced ones.
import { type Admin, AssignerProtocol } from 'kafkajs';
import type { PartitionPlan } from './partition-placement.ts';
import type { PartitionPlanStore } from './partition-plan-store.ts';
import { PRODUCER_METADATA_MAX_AGE_MS } from './producer.ts';

export interface ScalePartitionsOptions {
  admin: Admin;
  store: PartitionPlanStore;
  topic: string;
  partitions: number;
  /** The producers' lease (KAFKA_PARTITION_PLAN_LEASE_MS): who is live, and how long to wait for them. */
  leaseMs: number;
  /** Longest each waiting step may take. Default 5 minutes. */
  stepTimeoutMs?: number;
  /** Progress lines, for a person watching. */
  progress(line: string): void;
  /** Waits between polls; default real time (tests pass the same). */
  sleep?(ms: number): Promise<void>;
}

export type ScaleOutcome = { topic: string; from: number; to: number };

export class ScaleRefused extends Error {}

const POLL_MS = 250;

export async function scalePartitions(opts: ScalePartitionsOptions): Promise<ScaleOutcome> {
  const { admin, store, topic } = opts;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const stepTimeoutMs = opts.stepTimeoutMs ?? 300_000;
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  const existing = meta.topics[0]?.partitions.length ?? 0;
  if (existing === 0) throw new ScaleRefused(`topic ${topic} does not exist`);
  const current = (await store.readPlans()).get(topic);
  const from = current?.partitions ?? existing;
  const to = opts.partitions;
  if (!Number.isInteger(to) || to < 1) throw new ScaleRefused(`--partitions must be a positive integer`);
  if (to < from) throw new ScaleRefused(`${topic} has ${from} partitions; Kafka cannot take partitions away`);
  if (to === from && current?.state !== 'draining' && existing === from) {
    opts.progress(`${topic} already has ${from} partitions`);
    return { topic, from, to };
  }

  /** Polls `check` until it answers null (done) or the step times out; `check` says what is left. */
  const waitFor = async (step: string, check: () => Promise<string | null>) => {
    const startedAt = Date.now();
    const deadline = startedAt + stepTimeoutMs;
    let lastLine = startedAt;
    opts.progress(`${step}…`);
    for (;;) {
      const left = await check();
      if (left === null) {
        opts.progress(`${step}: done in ${Date.now() - startedAt} ms`);
        return;
      }
      if (Date.now() >= deadline)
        throw new Error(`${step}: still waiting after ${stepTimeoutMs} ms (${left})`);
      if (Date.now() - lastLine >= 2_000) {
        opts.progress(`${step}: waiting for ${left}`);
        lastLine = Date.now();
      }
      await sleep(POLL_MS);
    }
  };
  let version = current?.version ?? 0;
  const publish = async (plan: Omit<PartitionPlan, 'version'>) => {
    version += 1;
    await store.writePlan(topic, { ...plan, version });
    return version;
  };
  const acknowledgedByAll = (v: number) => async () => {
    const [live, acked] = await Promise.all([
      store.liveProducers(opts.leaseMs),
      store.acknowledged(topic, v),
    ]);
    const missing = live.filter((p) => !acked.includes(p));
    return missing.length === 0
      ? null
      : `${missing.length} of ${live.length} producers (${missing.join(', ')})`;
  };

  opts.progress(`${topic}: ${from} → ${to} partitions`);
  const v1 = await publish({ partitions: from, state: 'active' });
  await waitFor('1/5 producers place by the plan', acknowledgedByAll(v1));

  const addedAt = Date.now();
  if (existing < to) {
    await admin.createPartitions({ topicPartitions: [{ topic, count: to }] });
    opts.progress(`2/5 added partitions ${existing}..${to - 1}`);
  }
  const groups = await groupsOf(admin, topic);
  opts.progress(`2/5 consumer groups of ${topic}: ${groups.join(', ') || '(none)'}`);
  await waitFor('2/5 consumer groups rebalance onto every partition', async () => {
    const short = await groupsNotCovering(admin, groups, topic, to);
    return short.length === 0 ? null : short.join(', ');
  });

  // Producers learn of the new partitions by their metadata refresh (producer.ts): give it time.
  const metadataWaitMs = addedAt + PRODUCER_METADATA_MAX_AGE_MS - Date.now();
  if (metadataWaitMs > 0) {
    opts.progress(`2/5 producers' metadata refresh (${metadataWaitMs} ms)`);
    await sleep(metadataWaitMs);
  }

  const v2 = await publish({ partitions: from, state: 'draining' });
  try {
    await waitFor('3/5 producers hold their sends', acknowledgedByAll(v2));
    const ends = new Map(
      (await admin.fetchTopicOffsets(topic))
        .filter((p) => p.partition < from)
        .map((p) => [p.partition, BigInt(p.high)]),
    );
    await waitFor('4/5 old partitions drain', async () => {
      let behind = 0n;
      for (const groupId of groups) {
        const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
        for (const p of committed?.partitions ?? []) {
          const end = ends.get(p.partition);
          const at = BigInt(p.offset);
          if (end !== undefined && (at < 0n ? 0n : at) < end) behind += end - (at < 0n ? 0n : at);
        }
      }
      return behind === 0n ? null : `${behind} records`;
    });
  } catch (err) {
    // Give the producers their topic back under the old count rather than leave it held.
    await publish({ partitions: from, state: 'active' });
    throw err;
  }
  await publish({ partitions: to, state: 'active' });
  opts.progress(`5/5 ${topic} places keys over ${to} partitions`);
  return { topic, from, to };
}

/** The consumer groups whose members subscribe to `topic`. */
async function groupsOf(admin: Admin, topic: string): Promise<string[]> {
  const { groups } = await admin.listGroups();
  if (groups.length === 0) return [];
  const described = await admin.describeGroups(groups.map((g) => g.groupId));
  return described.groups
    .filter(
      (g) => g.protocolType === 'consumer' && g.members.some((m) => subscribes(m.memberMetadata, topic)),
    )
    .map((g) => g.groupId)
    .sort();
}

/** Whether a member's metadata (the consumer protocol's) subscribes to `topic`; other clients' may not parse. */
function subscribes(memberMetadata: Buffer, topic: string): boolean {
  try {
    return AssignerProtocol.MemberMetadata.decode(memberMetadata)?.topics.includes(topic) ?? false;
  } catch {
    return false;
  }
}

/** Groups (with their assigned count) not yet assigned every one of `count` partitions. */
async function groupsNotCovering(
  admin: Admin,
  groupIds: string[],
  topic: string,
  count: number,
): Promise<string[]> {
  if (groupIds.length === 0) return [];
  const described = await admin.describeGroups(groupIds);
  const short: string[] = [];
  for (const g of described.groups) {
    const assigned = new Set<number>();
    for (const m of g.members) {
      // A member still joining has an empty assignment, which does not parse.
      const assignment =
        m.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null;
      for (const p of assignment?.assignment[topic] ?? []) assigned.add(p);
    }
    if (g.state !== 'Stable' || assigned.size < count) short.push(`${g.groupId} (${assigned.size}/${count})`);
  }
  return short;
}
