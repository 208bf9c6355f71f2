// The partition actor host: one consumer-group member that owns some partitions of a topic and,
// for each record, the single actor of the record's key.
//
// Guarantees (see docs/architecture.md):
// - a key's records are applied strictly in offset order; different keys of a batch run in
//   parallel (up to keyConcurrency), and batches of different partitions concurrently;
// - an actor is rehydrated from durable state before its first record after every group join,
//   so a partition that moved away and back never runs on a stale in-memory actor;
// - the Kafka offset is committed only after every record of the batch is durably applied or
//   dead-lettered; a replay (crash, rebalance) is skipped by the actor's persisted position;
// - a record that can never apply goes to the dead-letter topic; any other failure is retried
//   with backoff, in place, keeping the key's order.
import { performance } from 'node:perf_hooks';
import {
  type BackoffOptions,
  backoffDelayMs,
  errorMessage,
  forEachConcurrent,
  type Logger,
  sleep,
  TerminalError,
} from '@lattice/core';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Registry } from 'prom-client';
import { type Actor, type ActorKind, type ActorRecord, isReplay } from './actor.ts';
import { type ActorHostMetrics, actorHostMetrics } from './actor-metrics.ts';
import type { Codec } from './codec.ts';
import type { DeadLetterSink } from './dead-letters.ts';

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
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  retry?: BackoffOptions;
  /** Called with this member's partitions after every group join. */
  onAssignment?: (partitions: number[]) => void;
}

export interface ActorHost {
  start(): Promise<void>;
  stop(): Promise<void>;
  assignedPartitions(): number[];
}

/** Thrown inside a batch when the batch must be left for the partition's next owner. */
class Abandoned extends Error {}

export function createActorHost<C>(opts: ActorHostOptions<C>): ActorHost {
  const log = opts.logger.child({ component: 'actor-host', topic: opts.topic, group: opts.groupId });
  const metrics: ActorHostMetrics = actorHostMetrics(opts.registry);
  const keyConcurrency = opts.keyConcurrency ?? 16;
  const retry = opts.retry ?? { initialMs: 100, maxMs: 10_000, jitterRatio: 0.2 };
  const consumer: Consumer = opts.kafka.consumer({
    groupId: opts.groupId,
    sessionTimeout: opts.sessionTimeoutMs ?? 30_000,
    heartbeatInterval: opts.heartbeatIntervalMs ?? 3_000,
    allowAutoTopicCreation: false,
  });
  let generation = 0;
  let assigned: number[] = [];
  let actors = new Map<string, Actor<C>>();

  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    generation++;
    actors = new Map();
    assigned = [...(event.payload.memberAssignment[opts.topic] ?? [])].sort((a, b) => a - b);
    metrics.rebalances.inc({ group: opts.groupId });
    log.info({ partitions: assigned, generation }, 'partitions assigned');
    opts.onAssignment?.(assigned);
  });
  consumer.on(consumer.events.CRASH, (event) => {
    log.error({ err: event.payload.error, restart: event.payload.restart }, 'consumer crashed');
  });

  async function actorFor(partition: number, key: string, reload = false): Promise<Actor<C>> {
    const cacheKey = `${partition}\u0000${key}`;
    const cached = reload ? undefined : actors.get(cacheKey);
    if (cached) return cached;
    const actor = await opts.kind.load(key, partition);
    actors.set(cacheKey, actor);
    return actor;
  }

  async function deadLetter(
    m: KafkaMessage,
    partition: number,
    err: unknown,
    alive: () => boolean,
  ): Promise<void> {
    const letter = {
      source_topic: opts.topic,
      source_partition: partition,
      source_offset: m.offset,
      key: m.key?.toString('utf8') ?? null,
      value: m.value ?? null,
      error: errorMessage(err),
      failed_at_ms: Date.now(),
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await opts.deadLetters.send(letter);
        metrics.records.inc({ topic: opts.topic, outcome: 'dead_lettered' });
        log.error({ partition, offset: m.offset, error: letter.error }, 'record dead-lettered');
        return;
      } catch (sendErr) {
        log.warn({ err: sendErr, attempt }, 'dead-letter send failed; retrying');
        if (!alive()) throw new Abandoned();
        await sleep(backoffDelayMs(attempt, retry));
      }
    }
  }

  /** Applies a key's records, retrying in place; isolates and dead-letters a terminal record. */
  async function apply(
    partition: number,
    key: string,
    records: ActorRecord<C>[],
    raw: Map<bigint, KafkaMessage>,
    alive: () => boolean,
  ): Promise<void> {
    let actor = await actorFor(partition, key);
    let pending = records.filter((r) => !isReplay(actor.applied(), r));
    metrics.records.inc({ topic: opts.topic, outcome: 'replay_skipped' }, records.length - pending.length);
    for (let attempt = 1; pending.length > 0; attempt++) {
      try {
        await actor.handle(pending);
        metrics.records.inc({ topic: opts.topic, outcome: 'applied' }, pending.length);
        return;
      } catch (err) {
        // A failed handle may have left the in-memory actor half-updated: reload it from durable
        // state and keep only what it has not applied.
        actor = await actorFor(partition, key, true);
        pending = pending.filter((r) => !isReplay(actor.applied(), r));
        if (err instanceof TerminalError) {
          metrics.handlerErrors.inc({ topic: opts.topic, kind: 'terminal' });
          const [first, ...rest] = pending;
          if (!first) return;
          if (rest.length > 0) {
            for (const r of pending) await apply(partition, key, [r], raw, alive);
            return;
          }
          await deadLetter(raw.get(first.offset)!, partition, err, alive);
          return;
        }
        metrics.handlerErrors.inc({ topic: opts.topic, kind: 'retryable' });
        if (!alive()) throw new Abandoned();
        const delayMs = backoffDelayMs(attempt, retry);
        log.warn({ err, key, partition, attempt, delayMs }, 'actor handler failed; retrying');
        await sleep(delayMs);
      }
    }
  }

  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    if (batch.messages.length === 0) return;
    const startedAt = performance.now();
    const batchGeneration = generation;
    const partition = batch.partition;
    let rebalanceError: unknown;
    const alive = () =>
      payload.isRunning() &&
      !payload.isStale() &&
      batchGeneration === generation &&
      rebalanceError === undefined;

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
        metrics.handlerErrors.inc({ topic: opts.topic, kind: 'decode' });
        await deadLetter(m, partition, err, alive);
        continue;
      }
      const record: ActorRecord<C> = {
        topic: batch.topic,
        partition,
        offset,
        key,
        value,
        timestampMs: Number(m.timestamp),
      };
      const list = byKey.get(key);
      if (list) list.push(record);
      else byKey.set(key, [record]);
    }

    let abandoned = false;
    await forEachConcurrent([...byKey], keyConcurrency, async ([key, records]) => {
      if (!alive()) {
        abandoned = true;
        return;
      }
      try {
        await apply(partition, key, records, raw, alive);
      } catch (err) {
        if (err instanceof Abandoned) abandoned = true;
        else throw err;
      }
      try {
        await payload.heartbeat();
      } catch (err) {
        rebalanceError ??= err;
      }
    });
    if (rebalanceError !== undefined) throw rebalanceError;
    if (abandoned || !alive()) {
      log.info({ partition, firstOffset: batch.firstOffset() }, 'batch left to the next owner');
      return;
    }
    const last = batch.lastOffset();
    payload.resolveOffset(last);
    await payload.commitOffsetsIfNecessary({
      topics: [{ topic: batch.topic, partitions: [{ partition, offset: (BigInt(last) + 1n).toString() }] }],
    });
    metrics.lag.set({ topic: batch.topic, partition: String(partition) }, Number(batch.offsetLag()));
    metrics.batchSeconds.observe({ topic: batch.topic }, (performance.now() - startedAt) / 1000);
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
    },
    async stop() {
      await consumer.disconnect();
    },
    assignedPartitions: () => assigned,
  };
}
