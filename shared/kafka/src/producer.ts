// Producing records: acks from all in-sync replicas and the idempotent producer, so a 2xx
// "durably in Kafka" answer means what it says and the producer's own retries never duplicate
// or reorder a key. Retries are bounded (kafkajs warns about that): a send that still fails
// surfaces to the caller, whose retry may duplicate a record; consumers are idempotent for that.
//
// A send is only trusted for the partitions its answer acknowledges. kafkajs (2.2) drops records
// silently and still resolves the send in two cases:
// - a broker dies under a send and its partitions move to a broker that had already answered for
//   others: the retry sends them nowhere (tulios/kafkajs#1303);
// - a record is placed on a partition the producer's metadata does not list yet (one just added
//   by `lattice topics scale`): Cluster.findLeaderForPartitions skips it.
// Each record's partition is noted as the partitioner places it; records whose partition the
// answer does not acknowledge are sent again (kafkajs rolled their sequence numbers back, so a copy
// that did land is recognised by the broker as a duplicate): at once, then after the metadata is
// due for a refresh; the send fails if they still are not acknowledged.
//
// A send kafkajs had to retry retires its kafkajs producer. kafkajs numbers an idempotent
// producer's records per partition and takes a failed request's numbers back, even when the
// request landed (the leader appended and replicated it, then died before answering). If the send
// then fails, the next records reuse those numbers and the broker takes them for the landed
// request's retry: it answers success and drops them, a silent loss of acknowledged records. A
// send that succeeded after a retry can leave numbers behind too: a retry starts while another
// broker's request of the same attempt is still in flight, and that request's later failure
// takes back numbers a moved partition has used since. So after any send kafkajs retried (its
// partitioner placed the records more than once) or that failed, the next one goes out under a new
// producer id, which no broker holds numbers for. The cost is a copy where a record had landed
// unanswered (consumers drop second copies by id), never a loss. Sends go one at a time for the
// same reason: a send in flight while kafkajs retries another could pick up the numbers it gave
// back. A retired producer's request may still land late, after newer records of its key: only a
// request already answered as failed, whose outcome the caller was told is unknown.
import { type Logger, type Scheduler, systemScheduler } from '@lattice/core';
import {
  type Kafka,
  type Message,
  Partitioners,
  type Producer,
  type RecordMetadata,
  type RetryOptions,
} from 'kafkajs';
import type { Codec } from './codec.ts';
import { partitionOfKey } from './key-partition.ts';
import { metadataPlacement, type PartitionPlacement } from './partition-placement.ts';
import { requestIdHeaders } from './record-headers.ts';

/**
 * How stale a producer's topic metadata may get: the longest a partition added to a topic can be
 * unknown to it. The scaling procedure waits this long after adding partitions before producers
 * place keys on them, so the resend after a refresh is rare.
 */
export const PRODUCER_METADATA_MAX_AGE_MS = 5_000;

/** How often records a send left unacknowledged are sent again before the send fails. */
const UNACKNOWLEDGED_RESENDS = 3;

/**
 * A send's own retries: waits capped at 1 s (the client's 5 s would leave a send asleep for
 * seconds after a new leader took over from a dead broker), given up after about 10 s, the
 * publish timeout of the request paths, so a stuck send does not hold up the next one long.
 */
const SEND_RETRY: RetryOptions = { initialRetryTime: 100, maxRetryTime: 1000, retries: 13 };

export interface OutgoingRecord<T> {
  key: string;
  value: T;
  /** The HTTP request the record is produced for: sent as the `lattice-request-id` header. */
  requestId?: string | undefined;
}

export interface RecordProducer {
  send<T>(topic: string, codec: Codec<T>, records: ReadonlyArray<OutgoingRecord<T>>): Promise<void>;
  disconnect(): Promise<void>;
}

/** The part of kafkajs a record producer uses (a fake one in unit tests). */
export type ProducerFactory = Pick<Kafka, 'producer'>;

export interface RecordProducerOptions {
  /**
   * Where keys go while topics are re-partitioned (partition-placement.ts); every role that
   * produces while the platform runs passes its shared one. Default: Kafka's partitioner.
   */
  placement?: PartitionPlacement;
  /** Told when records a send left unacknowledged are sent again. */
  logger?: Logger;
  /** The wait before a resend after a metadata refresh. Default systemScheduler. */
  scheduler?: Scheduler;
  /** kafkajs's own retries of a send. Default SEND_RETRY (about 10 s). */
  sendRetry?: RetryOptions;
}

export async function createRecordProducer(
  kafka: ProducerFactory,
  opts: RecordProducerOptions = {},
): Promise<RecordProducer> {
  const placement = opts.placement ?? metadataPlacement;
  const scheduler = opts.scheduler ?? systemScheduler;
  // Where the partitioner last placed each message (kafkajs places them again on every retry).
  const placed = new WeakMap<Message, number>();
  // kafkajs's attempts at the send in progress: how often it placed the send's first record.
  let firstOfSend: Message | undefined;
  let attempts = 0;
  const newProducer = async (): Promise<Producer> => {
    const created = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      metadataMaxAge: PRODUCER_METADATA_MAX_AGE_MS,
      retry: opts.sendRetry ?? SEND_RETRY,
      // murmur2 like the Java client, so every producer places a key on the same partition (a
      // message's own `partition`, set by a partition plan, wins).
      createPartitioner: () => {
        const place = Partitioners.DefaultPartitioner();
        return (args) => {
          const partition = place(args);
          placed.set(args.message, partition);
          if (args.message === firstOfSend) attempts++;
          return partition;
        };
      },
    });
    try {
      await created.connect();
    } catch (err) {
      // connect() may have opened the cluster's connections before its producer id failed.
      await created.disconnect().catch(() => undefined);
      throw err;
    }
    return created;
  };
  let producer = await newProducer();
  /** Set by a send kafkajs retried or that failed: its producer's numbers can no longer be trusted. */
  let retired = false;
  let closed = false;
  /** Retired producers still disconnecting: disconnect() waits for them too. */
  const retiring = new Set<Promise<void>>();
  /** The send in progress (sends go one at a time). */
  let tail: Promise<unknown> = Promise.resolve();

  async function currentProducer(): Promise<Producer> {
    if (!retired) return producer;
    const old = producer;
    producer = await newProducer(); // a failure leaves it retired: the next send tries again
    retired = false;
    opts.logger?.info('a send was retried or failed: records now go out under a new producer id');
    const gone: Promise<void> = old
      .disconnect()
      .catch(() => undefined)
      .finally(() => retiring.delete(gone));
    retiring.add(gone);
    return producer;
  }

  /** One kafkajs send; retires the producer if kafkajs retried it or it failed. */
  async function sendOnce(topic: string, messages: Message[]): Promise<RecordMetadata[]> {
    const kafkaProducer = await currentProducer();
    firstOfSend = messages[0];
    attempts = 0;
    let ok = false;
    try {
      const answer = await kafkaProducer.send({ topic, acks: -1, messages });
      ok = true;
      return answer;
    } finally {
      if (!ok || attempts > 1) retired = true;
      firstOfSend = undefined;
    }
  }

  async function sendNow(topic: string, messages: Message[]): Promise<void> {
    let pending = messages;
    for (let resend = 0; ; resend++) {
      const answer = await sendOnce(topic, pending);
      pending = unacknowledged(pending, answer, placed);
      if (pending.length === 0) return;
      const partitions = [...new Set(pending.map((m) => placed.get(m)))];
      if (resend === UNACKNOWLEDGED_RESENDS) {
        retired = true;
        throw new Error(`partitions ${partitions.join(', ')} of ${topic} were not acknowledged`);
      }
      opts.logger?.warn(
        { topic, partitions, records: pending.length, attempt: resend + 1 },
        'a send left partitions unacknowledged; sending their records again',
      );
      // A moved leader is found at once; a partition the metadata lacks needs its refresh.
      // Holding the records back keeps each key's order: a key's records share a partition. The
      // wait holds this producer's later sends too (they could carry the same keys): rare, and
      // group-commit callers wait for their send anyway.
      if (resend > 0) await scheduler.sleep(PRODUCER_METADATA_MAX_AGE_MS);
    }
  }

  return {
    async send(topic, codec, records) {
      if (closed) throw new Error('the record producer is disconnected');
      const slot = await placement.acquire(topic);
      try {
        const count = slot.partitions;
        const messages: Message[] = records.map((r) => ({
          key: r.key,
          value: codec.encode(r.value),
          headers: requestIdHeaders(r.requestId),
          ...(count === null ? {} : { partition: partitionOfKey(topic, r.key, count) }),
        }));
        // Checked again: a send that waited for its slot while disconnect() ran must not start.
        if (closed) throw new Error('the record producer is disconnected');
        const sent = tail.then(() => sendNow(topic, messages));
        tail = sent.catch(() => undefined);
        await sent;
      } finally {
        slot.release();
      }
    },
    async disconnect() {
      closed = true;
      // Sends already queued finish first; none joins from here on (a send checks `closed` and
      // joins in one step), and one still waiting for its partition slot is refused when it gets it.
      await tail;
      await producer.disconnect();
      await Promise.all(retiring);
    },
  };
}

/** The messages whose partition the send's answer does not acknowledge. */
function unacknowledged(
  messages: Message[],
  answer: RecordMetadata[],
  placed: WeakMap<Message, number>,
): Message[] {
  const acknowledged = new Set(answer.filter((r) => r.errorCode === 0).map((r) => r.partition));
  return messages.filter((m) => {
    const partition = placed.get(m);
    return partition === undefined || !acknowledged.has(partition);
  });
}
