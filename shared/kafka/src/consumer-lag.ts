// Consumer lag per partition as the broker sees it: the partition's high watermark minus the
// group's committed offset (what `kafka-consumer-groups.sh --describe` shows). Read when the
// metrics are scraped rather than after each batch, because the partitions that matter most are
// the ones that fetch no batch: stuck behind a retrying key, their lag grows while no batch ends.
import { errorMessage, type Logger, type Scheduler } from '@lattice/core';
import type { Admin, Kafka } from 'kafkajs';

export interface PartitionLag {
  partition: number;
  lag: number;
}

/** What the lag gauge asks of each host when scraped. */
export interface LagSource {
  readonly group: string;
  readonly topic: string;
  /** The lag of the partitions the host owns now; null when the broker could not say in time. */
  read(): Promise<PartitionLag[] | null>;
}

export interface PartitionEnds {
  partition: number;
  /** The high watermark: the offset the next record will get. */
  high: string;
  /** The earliest offset still kept. */
  low: string;
}

/**
 * The lag of `owned` partitions. A partition without a committed offset (-1) is read from its
 * beginning (hosts subscribe fromBeginning), so everything still kept counts.
 */
export function lagOf(
  owned: readonly number[],
  ends: readonly PartitionEnds[],
  committed: ReadonlyMap<number, string>,
): PartitionLag[] {
  const byPartition = new Map(ends.map((e) => [e.partition, e]));
  const lags: PartitionLag[] = [];
  for (const partition of owned) {
    const end = byPartition.get(partition);
    if (!end) continue;
    const high = BigInt(end.high);
    const offset = BigInt(committed.get(partition) ?? '-1');
    const from = offset < 0n ? BigInt(end.low) : offset;
    lags.push({ partition, lag: Number(high > from ? high - from : 0n) });
  }
  return lags;
}

export interface ConsumerLagReaderOptions {
  kafka: Kafka;
  group: string;
  topic: string;
  /** The partitions the host owns now. */
  owned: () => readonly number[];
  scheduler: Scheduler;
  logger: Logger;
  /** A scrape waits this long for the broker, then reports no lag for the host. Default 3000. */
  timeoutMs?: number;
}

export interface ConsumerLagReader extends LagSource {
  close(): Promise<void>;
}

export function createConsumerLagReader(opts: ConsumerLagReaderOptions): ConsumerLagReader {
  const { kafka, group, topic, scheduler, logger } = opts;
  const timeoutMs = opts.timeoutMs ?? 3_000;
  // One admin client per host, connected on the first scrape (a host nobody scrapes opens none).
  let admin: Promise<Admin> | null = null;
  let closed = false;

  function connected(): Promise<Admin> {
    admin ??= (async () => {
      const client = kafka.admin();
      await client.connect();
      return client;
    })().catch((err: unknown) => {
      admin = null;
      throw err;
    });
    return admin;
  }

  async function fromBroker(owned: readonly number[]): Promise<PartitionLag[]> {
    const client = await connected();
    const [ends, offsets] = await Promise.all([
      client.fetchTopicOffsets(topic),
      client.fetchOffsets({ groupId: group, topics: [topic] }),
    ]);
    const committed = new Map<number, string>();
    for (const p of offsets.find((t) => t.topic === topic)?.partitions ?? []) {
      committed.set(p.partition, p.offset);
    }
    return lagOf(owned, ends, committed);
  }

  return {
    group,
    topic,
    async read() {
      const owned = opts.owned();
      if (closed || owned.length === 0) return [];
      let timer: ReturnType<Scheduler['setTimeout']> | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = scheduler.setTimeout(() => resolve(null), timeoutMs, { unref: true });
      });
      try {
        const lags = await Promise.race([fromBroker(owned), timeout]);
        if (lags === null)
          logger.warn({ timeoutMs }, 'consumer lag not read in time; left out of this scrape');
        return lags;
      } catch (err) {
        logger.warn({ err: errorMessage(err) }, 'consumer lag could not be read; left out of this scrape');
        return null;
      } finally {
        scheduler.clearTimer(timer);
      }
    },
    async close() {
      closed = true;
      const client = await admin?.catch(() => null);
      admin = null;
      await client?.disconnect();
    },
  };
}
