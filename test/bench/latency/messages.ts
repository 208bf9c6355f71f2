// What the latency benchmark's processes say to each other over IPC (fork with `advanced`
// serialization, so typed arrays travel as they are): the runner (run.ts), the publisher
// (publisher.ts), the subscriber workers (subscribers.ts) and the bare pipeline's server
// children (bare-*.ts).

/** What every publish carries as `data`: the channel's sequence number, the send time, the phase. */
export interface PublishData {
  /** Sequence number on its channel, dense from 1. */
  s: number;
  /** Sent at, epoch ms with a fraction (performance.timeOrigin + performance.now()). */
  t: number;
  /** 1 when sent in the measured phase, 0 in the ramp before it. */
  p: 0 | 1;
  /**
   * The highest sequence number on its channel answered 2xx before this one was sent (0: none).
   * That message was durably accepted first, so it must be delivered first: the order check.
   */
  a: number;
  text: string;
}

export interface PublishPlan {
  /** `POST` target of every publish, and its headers (key, content type). */
  url: string;
  headers: Record<string, string>;
  /** Added to every body after channel and data. */
  bodyFields: Record<string, string>;
  channels: string[];
  ratePerS: number;
  rampS: number;
  durationS: number;
  /** Most sockets the keep-alive agent opens; a request beyond them waits for a free one. */
  sockets: number;
}

export interface PublishResult {
  /** Publishes sent in all (ramp and measured phase). */
  sent: number;
  /** Answered 2xx. */
  accepted: number;
  /** Per channel index: the last sequence number sent. */
  lastSeq: number[];
  /** Per channel index: the sequence numbers not answered 2xx (refused, failed or timed out). */
  failedSeqs: number[][];
  /** Answers by status (`error` for a request that failed without one). */
  statuses: Record<string, number>;
  /** Publishes sent in the measured phase, and how long it lasted. */
  measuredSent: number;
  measuredMs: number;
  /** 2xx answers received during the measured phase. */
  answeredInPhase: number;
  /** Publish → answer of the measured phase's publishes, ms. */
  answerP50Ms: number;
  answerP99Ms: number;
}

export type PublisherCommand = { type: 'run'; plan: PublishPlan };

export type PublisherMessage =
  | { type: 'started'; pid: number }
  | { type: 'progress'; sent: number; answered: number; failed: number }
  /** The ramp is over: the measured phase starts now. */
  | { type: 'measuring' }
  /** The schedule is over (answers may still be on their way). */
  | { type: 'published' }
  | { type: 'done'; result: PublishResult }
  | { type: 'failed'; reason: string };

export interface Assignment {
  channel: string;
  /** Connections this worker opens, each subscribed to `channel` only. */
  clients: number;
  /** A delegated token granting `subscribe` on the channel (Lattice), sent in `auth` first. */
  token?: string;
}

/** Per channel: the last sequence number published and those not accepted. */
export type Expected = Record<string, { last: number; failed: number[] }>;

/** Summed over a worker's subscribers, in deliveries (one message missed by 10 subscribers: 10). */
export interface DeliveryCheck {
  deliveries: number;
  /** Accepted messages a subscriber never received. */
  lost: number;
  /** Deliveries of a message the subscriber had already received. */
  duplicated: number;
  /** First deliveries of a message older than one the subscriber had already received. */
  outOfOrder: number;
  /** Deliveries of a message whose publish was not accepted (its fate was unknown). */
  unexpected: number;
}

export type SubscriberCommand =
  | { type: 'connect'; url: string; assignments: Assignment[]; concurrency: number }
  | { type: 'verify'; expected: Expected }
  | { type: 'close' };

export type SubscriberMessage =
  | { type: 'started'; pid: number }
  | { type: 'connected'; connections: number; ms: number }
  | { type: 'count'; delivered: number }
  /** `latencies`: receive − send of every delivery of a measured-phase message, ms. */
  | { type: 'verify'; check: DeliveryCheck; latencies: Float64Array }
  | { type: 'closed' }
  | { type: 'failed'; reason: string };

/** A bare pipeline server child's first message. */
export type BareChildMessage =
  | { type: 'ready'; pid: number; url: string | null }
  | { type: 'failed'; reason: string };

export interface BareChildArgs {
  kafkaBrokers: string[];
  topic: string;
  groupId: string;
  databaseUrl: string;
  table: string;
  redisUrl: string;
  /** Redis channel of a Lattice channel: this prefix, then the channel's name. */
  redisPrefix: string;
  /** Partitions of the topic one consumer works on at once (kafkajs partitionsConsumedConcurrently). */
  partitionsConcurrency: number;
}
