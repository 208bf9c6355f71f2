// Producing records for request paths that answer "once durably in Kafka" (realtime publishes,
// mail sends): acks=all and the idempotent producer (one request in flight), made fast by group
// commit: while one produce request is in flight, the records that arrive queue up and go out
// together in the next one, each caller answered when the request holding its record is
// acknowledged. Order is kept (FIFO, one request at a time), so one caller's records of a key
// get increasing offsets.
//
// A record not acknowledged within timeoutMs is answered as a failure (the caller's 503). If it
// was still queued it is withdrawn, so it will never be produced; if it was already in a request,
// the outcome is unknown (it may still land): consumers drop the second copy by the record's id.
import { errorMessage, type Logger, type Scheduler, systemScheduler } from '@lattice/core';
import type { Codec } from './codec.ts';
import type { RecordProducer } from './producer.ts';

export interface GroupCommitPublisher<T> {
  /**
   * Resolves once the record is acknowledged by all in-sync replicas; rejects otherwise.
   * `requestId` (the HTTP request it is produced for) goes out as the record's header.
   */
  publish(key: string, value: T, requestId?: string): Promise<void>;
  close(): Promise<void>;
}

export class PublishFailedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PublishFailedError';
  }
}

export interface GroupCommitPublisherOptions<T> {
  /** A connected producer, or how to connect one (on first use, again after a failed connect). */
  producer: RecordProducer | (() => Promise<RecordProducer>);
  /** Full topic name (with the deployment's prefix). */
  topic: string;
  codec: Codec<T>;
  logger: Logger;
  /** Encoded size estimate of a record, for maxBatchBytes. Default 512. */
  sizeOf?: (value: T) => number;
  /** Names the records in log lines. */
  what?: string;
  /** Default 10 000. */
  timeoutMs?: number;
  /** Runs the publish timeouts. Default systemScheduler. */
  scheduler?: Scheduler;
  /** Records per produce request. Default 1000. */
  maxBatchRecords?: number;
  /**
   * Approximate bytes per produce request (under the broker's 1 MiB message.max.bytes).
   * Default 900 000; a record larger than that goes alone.
   */
  maxBatchBytes?: number;
}

/** A queued record; it is itself the OutgoingRecord handed to the producer (no copy per record). */
interface Pending<T> {
  key: string;
  value: T;
  requestId: string | undefined;
  bytes: number;
  settled: boolean;
  resolve(): void;
  reject(err: Error): void;
}

export function createGroupCommitPublisher<T>(opts: GroupCommitPublisherOptions<T>): GroupCommitPublisher<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const scheduler = opts.scheduler ?? systemScheduler;
  const maxRecords = opts.maxBatchRecords ?? 1000;
  const maxBytes = opts.maxBatchBytes ?? 900_000;
  const log = opts.logger.child({ component: 'group-commit-publisher', topic: opts.topic });
  const sizeOf = opts.sizeOf ?? (() => 512);
  const what = opts.what ?? 'records';
  const queue: Pending<T>[] = [];
  let flushing: Promise<void> | null = null;
  let producer: RecordProducer | null = typeof opts.producer === 'function' ? null : opts.producer;
  let connecting: Promise<RecordProducer> | null = null;
  let closed = false;

  async function connected(): Promise<RecordProducer> {
    if (producer) return producer;
    const connect = opts.producer as () => Promise<RecordProducer>;
    connecting ??= connect().then(
      (p) => {
        producer = p;
        connecting = null;
        return p;
      },
      (err: unknown) => {
        connecting = null;
        throw err;
      },
    );
    return connecting;
  }

  function takeBatch(): Pending<T>[] {
    const batch: Pending<T>[] = [];
    let bytes = 0;
    while (queue.length > 0 && batch.length < maxRecords) {
      const next = queue[0]!;
      if (batch.length > 0 && bytes + next.bytes > maxBytes) break;
      queue.shift();
      if (next.settled) continue; // timed out while queued: withdrawn
      batch.push(next);
      bytes += next.bytes;
    }
    return batch;
  }

  async function flush(): Promise<void> {
    while (queue.length > 0) {
      const batch = takeBatch();
      if (batch.length === 0) continue;
      try {
        const p = await connected();
        await p.send(opts.topic, opts.codec, batch);
        for (const b of batch) b.resolve();
      } catch (err) {
        log.warn({ err: errorMessage(err), records: batch.length }, `producing ${what} failed`);
        const failure = new PublishFailedError(`producing failed: ${errorMessage(err)}`, { cause: err });
        for (const b of batch) b.reject(failure);
      }
    }
  }

  function kick(): void {
    if (flushing) return;
    flushing = flush().finally(() => {
      flushing = null;
      // A publish queued after the loop's last check and before this point.
      if (queue.some((p) => !p.settled)) kick();
    });
  }

  return {
    publish(key, value, requestId) {
      if (closed) return Promise.reject(new PublishFailedError('the publisher is closed'));
      return new Promise<void>((resolve, reject) => {
        const timer = scheduler.setTimeout(() => {
          entry.settled = true;
          reject(new PublishFailedError(`not acknowledged within ${timeoutMs} ms`));
        }, timeoutMs);
        const entry: Pending<T> = {
          key,
          value,
          requestId,
          bytes: sizeOf(value),
          settled: false,
          resolve: () => {
            if (entry.settled) return;
            entry.settled = true;
            scheduler.clearTimer(timer);
            resolve();
          },
          reject: (err) => {
            if (entry.settled) return;
            entry.settled = true;
            scheduler.clearTimer(timer);
            reject(err);
          },
        };
        queue.push(entry);
        kick();
      });
    },
    async close() {
      closed = true;
      await flushing;
      const p = producer ?? (connecting ? await connecting.catch(() => null) : null);
      if (p && typeof opts.producer === 'function') await p.disconnect().catch(() => undefined);
    },
  };
}
