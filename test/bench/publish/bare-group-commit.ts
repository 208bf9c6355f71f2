// The bare arm's producer: group commit wired by hand on a kafkajs producer, the way Lattice's
// group-commit publisher does it (docs/architecture.md, "Producing") and nothing more: an
// idempotent producer, acks=all, one produce request in flight; the records that arrive while a
// request is in flight go out together in the next one (at most 1000 records and about 900 000
// bytes a request, Lattice's limits), and each caller is answered when the request holding its
// record is acknowledged. What Lattice adds around it (timeouts, a new producer id after a
// retried send, resends of records a partial answer left out) is not here.
import { type Kafka, type Message, Partitioners } from 'kafkajs';

const MAX_RECORDS = 1000;
const MAX_BYTES = 900_000;

export interface BareGroupCommit {
  /** Resolves once the request holding `message` is acknowledged by all in-sync replicas. */
  send(message: Message): Promise<void>;
  /** Produce requests sent so far. */
  requests(): number;
  close(): Promise<void>;
}

interface Queued {
  message: Message;
  bytes: number;
  resolve(): void;
  reject(err: unknown): void;
}

const sizeOf = (m: Message) =>
  String(m.key ?? '').length +
  String(m.value ?? '').length +
  Object.entries(m.headers ?? {}).reduce((n, [k, v]) => n + k.length + String(v).length, 0);

export async function bareGroupCommit(kafka: Kafka, topic: string): Promise<BareGroupCommit> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    // murmur2, as Lattice's producer places keys.
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  const queue: Queued[] = [];
  let flushing = false;
  let requests = 0;

  const takeBatch = (): Queued[] => {
    let n = 0;
    let bytes = 0;
    while (n < queue.length && n < MAX_RECORDS) {
      const next = queue[n]!.bytes;
      if (n > 0 && bytes + next > MAX_BYTES) break;
      bytes += next;
      n++;
    }
    return queue.splice(0, n);
  };

  async function flush(): Promise<void> {
    flushing = true;
    while (queue.length > 0) {
      const batch = takeBatch();
      requests++;
      try {
        await producer.send({ topic, acks: -1, messages: batch.map((b) => b.message) });
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    flushing = false;
  }

  return {
    send(message) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ message, bytes: sizeOf(message), resolve, reject });
        if (!flushing) void flush();
      });
    },
    requests: () => requests,
    async close() {
      while (flushing) await new Promise((resolve) => setTimeout(resolve, 5));
      await producer.disconnect();
    },
  };
}
