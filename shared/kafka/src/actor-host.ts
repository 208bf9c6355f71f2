// The partition actor host: one consumer-group member that owns some partitions of a topic and,
// for each record, the single actor of the record's key.
//
// Guarantees (docs/architecture.md):
// - a key's records are applied strictly in offset order; different keys of a batch run in
//   parallel (up to keyConcurrency), and batches of different partitions concurrently;
// - an actor is rehydrated from durable state before its first record after every group join,
//   so a partition that moved away and back never runs on a stale in-memory actor;
// - the Kafka offset is committed only after every record of the batch is durably applied or
//   dead-lettered, by a commit that runs beside the next batches instead of before them (one
//   request at a time, carrying the newest offset of every partition; with `commitIntervalMs`,
//   at most that often); a replay (crash, rebalance) is skipped by the actor's persisted position;
// - while a batch is in flight the member keeps heartbeating, so a long retry never costs it
//   the partition behind its back (which would make a second writer); a batch whose partition
//   was revoked stops taking work and is left to the next owner;
// - a record that can never apply goes to the dead-letter topic; any other failure (of load or
//   handle) is retried in place with backoff, keeping the key's order.
//
// Log lines name the records' request ids (the `lattice-request-id` header): the retry and
// dead-letter lines always, and at debug level one line per key's applied records, so an id
// found in the edge's request line leads to the host that applied it.
import { performance } from 'node:perf_hooks';
import {
  type BackoffOptions,
  errorMessage,
  forEachConcurrent,
  type Logger,
  RetryableError,
  retryWithBackoff,
  type Scheduler,
  systemScheduler,
  TerminalError,
  type Timer,
} from '@lattice/core';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Registry } from 'prom-client';
import { type ActorKind, type ActorRecord, isReplay } from './actor.ts';
import { ActorCache } from './actor-cache.ts';
import {
  type ActorHostMetrics,
  actorHostMetrics,
  HANDLER_ERROR_KINDS,
  type HandlerErrorKind,
  RECORD_OUTCOMES,
  type RecordOutcome,
} from './actor-metrics.ts';
import type { Codec } from './codec.ts';
import { createConsumerLagReader } from './consumer-lag.ts';
import { type DeadLetter, type DeadLetterSink, sendDeadLetter } from './dead-letters.ts';
import { requestIdOf } from './record-headers.ts';
import { type StageTimer, stageTimer } from './stage-metrics.ts';

export interface ActorHostOptions<C> {
  kafka: Kafka;
  groupId: string;
  topic: string;
  codec: Codec<C>;
  kind: ActorKind<C>;
  deadLetters: DeadLetterSink;
  logger: Logger;
  registry: Registry;
  keyConcurrency?: number;
  partitionsConcurrency?: number;
  /** Actors kept in memory; the least recently used are evicted (and rehydrated on demand). */
  maxCachedActors?: number;
  sessionTimeoutMs?: number;
  /** How often topic metadata is re-read: added partitions are taken on (a rebalance) within it. */
  metadataMaxAgeMs?: number;
  heartbeatIntervalMs?: number;
  /** Longest a fetch waits for records; also bounds the heartbeat gap of an idle member. */
  maxWaitTimeMs?: number;
  retry?: BackoffOptions;
  /** Retry waits, the heartbeat pump and dead letters' failed_at_ms. Default systemScheduler. */
  scheduler?: Scheduler;
  /** Called with this member's partitions after every group join, and with none if it crashes for good. */
  onAssignment?: (partitions: number[]) => void;
  /**
   * Longest an applied batch's offset waits to be committed together with later ones. 0 (the
   * default): as soon as it is applied, by the next commit request (one is in flight at a time;
   * the next batch does not wait for it). For kinds whose replays are harmless (skipped by the
   * actor's applied position, or idempotent), where at a low rate one commit per record (a request
   * to the group coordinator and an append to its log each) costs more than the records: a crash
   * or a rebalance then replays up to this much more.
   */
  commitIntervalMs?: number;
  /**
   * The flow whose `produced_fetched` stage this topic's records end (docs/architecture.md
   * "Where the time goes"): the record's Kafka timestamp to its batch's fetch. None: not observed.
   */
  stageFlow?: 'realtime' | 'mail';
}

export interface ActorHost {
  start(): Promise<void>;
  stop(): Promise<void>;
  assignedPartitions(): number[];
  /** False once the consumer crashed for good (it will not restart by itself). */
  healthy(): boolean;
}

/** Thrown inside a batch when the batch must be left for the partition's next owner. */
class Abandoned extends Error {}

/** The distinct request ids of some records, for a log line. */
function requestIdsOf(records: readonly { requestId?: string | undefined }[]): string[] {
  const ids = new Set<string>();
  for (const r of records) if (r.requestId !== undefined) ids.add(r.requestId);
  return [...ids];
}

export function createActorHost<C>(opts: ActorHostOptions<C>): ActorHost {
  const log = opts.logger.child({ component: 'actor-host', topic: opts.topic, group: opts.groupId });
  const metrics: ActorHostMetrics = actorHostMetrics(opts.registry);
  const stages: StageTimer<'realtime' | 'mail'> | null = opts.stageFlow
    ? stageTimer(opts.registry, opts.stageFlow)
    : null;
  const keyConcurrency = opts.keyConcurrency ?? 16;
  const heartbeatIntervalMs = opts.heartbeatIntervalMs ?? 3_000;
  const retry = opts.retry ?? { initialMs: 100, maxMs: 10_000, jitterRatio: 0.2 };
  const scheduler = opts.scheduler ?? systemScheduler;
  const group = opts.groupId;
  // Label sets built once: counting a chunk allocates nothing.
  const hostLabels = { group, topic: opts.topic };
  const outcomeLabels = Object.fromEntries(
    RECORD_OUTCOMES.map((outcome) => [outcome, { group, topic: opts.topic, outcome }]),
  ) as Record<RecordOutcome, { group: string; topic: string; outcome: RecordOutcome }>;
  const errorLabels = Object.fromEntries(
    HANDLER_ERROR_KINDS.map((kind) => [kind, { group, topic: opts.topic, kind }]),
  ) as Record<HandlerErrorKind, { group: string; topic: string; kind: HandlerErrorKind }>;
  // Exported at 0 from the start, so rate() and increase() see the first dead letter or failure.
  for (const labels of Object.values(outcomeLabels)) metrics.records.inc(labels, 0);
  for (const labels of Object.values(errorLabels)) metrics.handlerErrors.inc(labels, 0);
  const consumer: Consumer = opts.kafka.consumer({
    groupId: opts.groupId,
    sessionTimeout: opts.sessionTimeoutMs ?? 30_000,
    heartbeatInterval: heartbeatIntervalMs,
    maxWaitTimeInMs: opts.maxWaitTimeMs ?? 1_000,
    allowAutoTopicCreation: false,
    metadataMaxAge: opts.metadataMaxAgeMs ?? 30_000,
  });
  const actors = new ActorCache<C>(opts.maxCachedActors ?? 10_000);
  let assigned: number[] = [];
  let healthy = true;
  metrics.hostUp.set(hostLabels, 1);
  const lag = createConsumerLagReader({
    kafka: opts.kafka,
    group,
    topic: opts.topic,
    owned: () => assigned,
    scheduler,
    logger: log,
  });
  let unwatchLag: (() => void) | null = null;

  // Commits: per partition, the next offset to commit, applied but not yet committed; written
  // together by one commit request at a time (and at most every commitIntervalMs when set).
  const commitIntervalMs = opts.commitIntervalMs ?? 0;
  const deferred = new Map<number, string>();
  let lastCommitAtMs = 0;
  let commitTimer: Timer | undefined;
  let committing: Promise<void> | null = null;

  /** Commits every deferred offset now (one request); what fails waits for the next try. */
  function commitDeferred(): Promise<void> {
    scheduler.clearTimer(commitTimer);
    commitTimer = undefined;
    if (committing) return committing.then(() => (deferred.size > 0 ? commitDeferred() : undefined));
    if (deferred.size === 0) return Promise.resolve();
    const offsets = [...deferred].map(([partition, offset]) => ({ topic: opts.topic, partition, offset }));
    deferred.clear();
    lastCommitAtMs = scheduler.nowMs();
    let failed = false;
    committing = consumer
      .commitOffsets(offsets)
      .catch((err: unknown) => {
        failed = true;
        // A rebalance under way or the coordinator moving: keep what no later batch replaced and
        // this member still owns; the next commit carries it (a record never committed is only
        // replayed, which this kind skips).
        for (const o of offsets) {
          if (!deferred.has(o.partition) && assigned.includes(o.partition))
            deferred.set(o.partition, o.offset);
        }
        log.info(
          { err: errorMessage(err), partitions: offsets.map((o) => o.partition) },
          'deferred commit failed',
        );
      })
      .finally(() => {
        committing = null;
        if (deferred.size === 0) return;
        // Offsets applied while this request was out go next: at once, unless it failed (then
        // after the first retry delay, so a coordinator that refuses fast is not hammered).
        if (failed) scheduleCommit(retry.initialMs);
        else if (commitIntervalMs === 0) void commitDeferred();
        else scheduleCommit();
      });
    return committing;
  }

  function scheduleCommit(minDelayMs = 0): void {
    if (commitTimer !== undefined || committing) return;
    const waitMs = Math.max(minDelayMs, lastCommitAtMs + commitIntervalMs - scheduler.nowMs());
    commitTimer = scheduler.setTimeout(
      () => {
        commitTimer = undefined;
        void commitDeferred();
      },
      waitMs,
      { unref: true },
    );
  }

  // A rebalance starts: commit what is deferred while this generation's commits are still taken,
  // so the partitions' next owners do not replay it.
  consumer.on(consumer.events.REBALANCING, () => {
    if (deferred.size > 0) void commitDeferred();
  });
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    const generation = actors.newGeneration();
    assigned = [...(event.payload.memberAssignment[opts.topic] ?? [])].sort((a, b) => a - b);
    // Offsets of partitions now another member's are theirs to commit (they replay from the last
    // commit): committing ours later could move theirs back.
    for (const partition of deferred.keys()) if (!assigned.includes(partition)) deferred.delete(partition);
    metrics.rebalances.inc({ group: opts.groupId });
    log.info({ partitions: assigned, generation }, 'partitions assigned');
    try {
      opts.onAssignment?.(assigned);
    } catch (err) {
      log.error({ err }, 'onAssignment callback failed');
    }
  });
  consumer.on(consumer.events.CRASH, (event) => {
    log.error({ err: event.payload.error, restart: event.payload.restart }, 'consumer crashed');
    if (!event.payload.restart) {
      healthy = false;
      assigned = [];
      metrics.hostUp.set(hostLabels, 0);
      // It owns nothing any more: work that outlives records (webhook loops) must stop too.
      try {
        opts.onAssignment?.([]);
      } catch (err) {
        log.error({ err }, 'onAssignment callback failed');
      }
    }
  });

  /** Sends a letter, retrying transient failures until it is sent or the batch is abandoned. */
  async function deadLetter(
    m: KafkaMessage,
    partition: number,
    err: unknown,
    alive: () => boolean,
  ): Promise<void> {
    const letter: DeadLetter = {
      source_topic: opts.topic,
      source_partition: partition,
      source_offset: m.offset,
      key: m.key?.toString('utf8') ?? null,
      value: m.value ?? null,
      error: errorMessage(err),
      failed_at_ms: scheduler.nowMs(),
    };
    const sent = await sendDeadLetter(opts.deadLetters, letter, {
      scheduler,
      backoff: retry,
      beforeRetry(sendErr, attempt) {
        log.warn({ err: sendErr, attempt }, 'dead-letter send failed; retrying');
        if (!alive()) throw new Abandoned();
      },
    });
    metrics.records.inc(outcomeLabels.dead_lettered);
    log.error(
      { partition, offset: m.offset, requestId: requestIdOf(m), error: sent.error },
      'record dead-lettered',
    );
  }

  /**
   * Applies one key's records of a batch. Returns when each is applied, skipped as a replay, or
   * dead-lettered; throws Abandoned when the batch must be left to the partition's next owner.
   */
  async function applyKey(
    partition: number,
    key: string,
    records: ActorRecord<C>[],
    raw: Map<bigint, KafkaMessage>,
    alive: () => boolean,
  ): Promise<void> {
    let queue = records;
    let reload = false;
    // After a terminal failure, records go one at a time so only the poison one is dead-lettered.
    let oneAtATime = false;
    let chunk: ActorRecord<C>[] = [];

    /** Applies the next chunk of the queue (all of it unless oneAtATime). */
    async function applyNext(): Promise<void> {
      if (!alive()) throw new Abandoned();
      chunk = [];
      const generation = actors.currentGeneration();
      let actor = reload ? undefined : actors.get(partition, key);
      if (!actor) {
        actor = await opts.kind.load(key, partition);
        actors.set(partition, key, actor, generation);
      }
      reload = false;
      const applied = actor.applied();
      const fresh = queue.filter((r) => !isReplay(applied, r));
      metrics.records.inc(outcomeLabels.replay_skipped, queue.length - fresh.length);
      if (fresh.length === 0) {
        queue = [];
        return;
      }
      chunk = oneAtATime ? fresh.slice(0, 1) : fresh;
      await actor.handle(chunk);
      metrics.records.inc(outcomeLabels.applied, chunk.length);
      // Once per applied record: a record fetched again (a replay, a batch left to the next
      // owner and taken up again) is not counted twice.
      if (stages) {
        for (const r of chunk) stages.observe('produced_fetched', (r.fetchedAtMs ?? 0) - r.timestampMs);
      }
      if (log.isLevelEnabled('debug')) {
        log.debug(
          {
            partition,
            key,
            fromOffset: String(chunk[0]!.offset),
            toOffset: String(chunk[chunk.length - 1]!.offset),
            records: chunk.length,
            requestIds: requestIdsOf(chunk),
          },
          'records applied',
        );
      }
      queue = fresh.slice(chunk.length);
    }

    // Backoff counts the failures in a row of one chunk: it starts over after progress (a chunk
    // applied, or a terminal failure dealt with).
    while (queue.length > 0) {
      try {
        await retryWithBackoff(applyNext, {
          scheduler,
          backoff: retry,
          beforeRetry(err, attempt, backoffMs) {
            // A failed load or handle may leave the in-memory actor half-updated: reload it.
            reload = true;
            if (err instanceof TerminalError || err instanceof Abandoned) throw err;
            metrics.handlerErrors.inc(errorLabels.retryable);
            if (!alive()) throw new Abandoned();
            const hintMs = err instanceof RetryableError ? err.retryAfterMs : 0;
            const delayMs = Math.max(hintMs, backoffMs);
            log.warn(
              {
                err,
                key,
                partition,
                attempt,
                delayMs,
                requestIds: requestIdsOf(chunk.length > 0 ? chunk : queue),
              },
              'actor failed; retrying',
            );
            return delayMs;
          },
        });
      } catch (err) {
        if (!(err instanceof TerminalError)) throw err;
        metrics.handlerErrors.inc(errorLabels.terminal);
        if (chunk.length > 1) {
          oneAtATime = true;
          continue;
        }
        // One record refused for good, or the key's state cannot be loaded at all.
        const poison = chunk.length === 1 ? chunk : queue;
        for (const r of poison) await deadLetter(raw.get(r.offset)!, partition, err, alive);
        const last = poison[poison.length - 1]!.offset;
        queue = queue.filter((r) => r.offset > last);
      }
    }
  }

  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    if (batch.messages.length === 0) return;
    const startedAt = performance.now();
    const fetchedAtMs = scheduler.nowMs();
    const batchGeneration = actors.currentGeneration();
    const partition = batch.partition;
    const labels = { group, topic: batch.topic, partition: String(partition) };
    let rebalanceError: unknown;
    const alive = () =>
      payload.isRunning() &&
      !payload.isStale() &&
      batchGeneration === actors.currentGeneration() &&
      rebalanceError === undefined;

    // Heartbeat for as long as the batch is in flight (kafkajs only heartbeats between batches);
    // a refused heartbeat means a rebalance is under way and the batch must wind down.
    const pump = scheduler.setInterval(() => {
      metrics.batchAge.set(labels, (performance.now() - startedAt) / 1000);
      payload.heartbeat().catch((err: unknown) => {
        rebalanceError ??= err;
      });
    }, heartbeatIntervalMs);

    try {
      let abandoned = false;
      const byKey = new Map<string, ActorRecord<C>[]>();
      const raw = new Map<bigint, KafkaMessage>();
      for (const m of batch.messages) {
        const offset = BigInt(m.offset);
        raw.set(offset, m);
        const key = m.key?.toString('utf8');
        let value: C;
        try {
          if (!key) throw new TerminalError('record has no key');
          if (!m.value) throw new TerminalError('record has no value');
          value = opts.codec.decode(m.value);
        } catch (err) {
          metrics.handlerErrors.inc(errorLabels.decode);
          try {
            await deadLetter(m, partition, err, alive);
          } catch (dlqErr) {
            if (!(dlqErr instanceof Abandoned)) throw dlqErr;
            abandoned = true;
            break;
          }
          continue;
        }
        const record: ActorRecord<C> = {
          topic: batch.topic,
          partition,
          offset,
          key,
          value,
          timestampMs: Number(m.timestamp),
          fetchedAtMs,
          requestId: requestIdOf(m),
        };
        const list = byKey.get(key);
        if (list) list.push(record);
        else byKey.set(key, [record]);
      }

      if (!abandoned) {
        await forEachConcurrent([...byKey], keyConcurrency, async ([key, records]) => {
          try {
            await applyKey(partition, key, records, raw, alive);
          } catch (err) {
            if (err instanceof Abandoned) abandoned = true;
            else throw err;
          }
        });
      }
      if (abandoned) {
        log.info({ partition, firstOffset: batch.firstOffset() }, 'batch left to the next owner');
        if (rebalanceError !== undefined) throw rebalanceError;
        return;
      }
      // Every record is applied or dead-lettered: its offset may be committed. The commit runs
      // beside the next batches, never before them (docs/architecture.md "The partition actor
      // host"): one commit request at a time carries the newest offset of every partition.
      const last = batch.lastOffset();
      payload.resolveOffset(last);
      deferred.set(partition, (BigInt(last) + 1n).toString());
      if (rebalanceError !== undefined) {
        // Committed now, while the group still takes this generation's commits, so the next
        // owner does not replay it (a refusal only costs that replay, which it skips).
        await commitDeferred();
        throw rebalanceError;
      }
      if (commitIntervalMs === 0 && !committing) void commitDeferred();
      else scheduleCommit();
      metrics.batchSeconds.observe(hostLabels, (performance.now() - startedAt) / 1000);
    } finally {
      scheduler.clearTimer(pump);
      metrics.batchAge.set(labels, 0);
    }
  }

  return {
    async start() {
      await consumer.connect();
      await consumer.subscribe({ topics: [opts.topic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: opts.partitionsConcurrency ?? 4,
        eachBatch,
      });
      unwatchLag ??= metrics.watchLag(lag);
    },
    async stop() {
      unwatchLag?.();
      unwatchLag = null;
      await commitDeferred();
      await consumer.disconnect();
      assigned = [];
      // Batches that ended during the disconnect committed what they could; nothing is tried
      // again on a consumer that is gone (the next owner skips those replays).
      scheduler.clearTimer(commitTimer);
      commitTimer = undefined;
      deferred.clear();
      await committing?.catch(() => undefined);
      await lag.close();
    },
    assignedPartitions: () => assigned,
    healthy: () => healthy,
  };
}
