// A stand-in for kafkajs's Kafka and Consumer, for unit tests of the partition actor host: the
// test hands the host batches (through the eachBatch it registered), answers its heartbeats and
// commits on command, and sees every offset commit. Only what the host uses is there.
import { EventEmitter } from 'node:events';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';

export interface FakeCommit {
  partition: number;
  /** The next offset to read, as Kafka takes it. */
  offset: bigint;
}

export interface FakeBatchRecord {
  offset: bigint;
  key: string;
  value: Buffer;
}

interface Deferred {
  resolve(): void;
  reject(err: unknown): void;
}

export class FakeConsumer {
  readonly events = {
    REBALANCING: 'consumer.rebalancing',
    GROUP_JOIN: 'consumer.group_join',
    CRASH: 'consumer.crash',
  } as const;
  /** Every commit request, in order, each offset as sent. */
  readonly commits: FakeCommit[][] = [];
  /** Called with each commit request before it is answered (the test's invariant check). */
  onCommit: (offsets: FakeCommit[]) => void = () => {};
  /** When true, commit requests wait for `answerCommit()`. */
  holdCommits = false;
  /** When set, heartbeats reject with it (a rebalance under way). */
  heartbeatError: Error | null = null;
  private readonly emitter = new EventEmitter();
  private eachBatch: ((payload: EachBatchPayload) => Promise<void>) | null = null;
  private readonly heldCommits: Deferred[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private generation = 0;

  readonly topic: string;

  constructor(topic: string) {
    this.topic = topic;
  }

  on(event: string, listener: (event: { payload: unknown }) => void): void {
    this.emitter.on(event, listener);
  }
  async connect(): Promise<void> {}
  async subscribe(): Promise<void> {}
  async run(opts: { eachBatch: (payload: EachBatchPayload) => Promise<void> }): Promise<void> {
    this.eachBatch = opts.eachBatch;
    this.running = true;
  }
  /** As kafkajs: waits for the batches in flight, then leaves. */
  async disconnect(): Promise<void> {
    this.running = false;
    await Promise.allSettled([...this.inFlight]);
  }
  commitOffsets(offsets: Array<{ topic: string; partition: number; offset: string }>): Promise<void> {
    const commit = offsets.map((o) => ({ partition: o.partition, offset: BigInt(o.offset) }));
    this.commits.push(commit);
    this.onCommit(commit);
    if (!this.holdCommits) return Promise.resolve();
    return new Promise((resolve, reject) => this.heldCommits.push({ resolve, reject }));
  }
  /** Answers the oldest held commit request (with an error: the coordinator refused it). */
  answerCommit(err?: Error): void {
    const held = this.heldCommits.shift();
    if (!held) throw new Error('no commit request is waiting');
    if (err) held.reject(err);
    else held.resolve();
  }
  heldCommitCount(): number {
    return this.heldCommits.length;
  }

  /** A group join that assigns these partitions (a new generation: earlier batches go stale). */
  join(partitions: number[]): void {
    this.generation += 1;
    this.emitter.emit(this.events.GROUP_JOIN, {
      payload: { memberAssignment: { [this.topic]: partitions } },
    });
  }
  rebalancing(): void {
    this.emitter.emit(this.events.REBALANCING, { payload: {} });
  }

  /** Hands the host one batch of a partition, as a fetch would; resolves when its eachBatch does. */
  batch(partition: number, records: FakeBatchRecord[]): Promise<void> {
    if (!this.eachBatch || !this.running) throw new Error('the consumer is not running');
    const generation = this.generation;
    const messages = records.map(
      (r): KafkaMessage => ({
        key: Buffer.from(r.key),
        value: r.value,
        offset: r.offset.toString(),
        timestamp: '0',
        attributes: 0,
        headers: {},
      }),
    );
    const payload = {
      batch: {
        topic: this.topic,
        partition,
        messages,
        firstOffset: () => messages[0]?.offset ?? null,
        lastOffset: () => messages[messages.length - 1]!.offset,
      },
      isRunning: () => this.running,
      isStale: () => generation !== this.generation,
      heartbeat: async () => {
        if (this.heartbeatError) throw this.heartbeatError;
      },
      resolveOffset: () => {},
      commitOffsetsIfNecessary: async () => {
        throw new Error('the host commits through consumer.commitOffsets');
      },
    } as unknown as EachBatchPayload;
    const done = this.eachBatch(payload);
    this.inFlight.add(done);
    void done.catch(() => {}).finally(() => this.inFlight.delete(done));
    return done;
  }
}

/** A Kafka whose one consumer is `consumer`; the host's lag reader never connects in unit tests. */
export function fakeKafka(consumer: FakeConsumer): Kafka {
  return {
    consumer: () => consumer,
    admin: () => {
      throw new Error('no admin client in unit tests');
    },
  } as unknown as Kafka;
}
