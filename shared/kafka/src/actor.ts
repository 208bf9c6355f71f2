// What the partition host asks of an actor kind. The host owns ordering, concurrency, replay
// skipping and offset commits; the actor owns its state and makes its effects durable.

export interface ActorRecord<C> {
  topic: string;
  partition: number;
  offset: bigint;
  key: string;
  value: C;
  /** The record's Kafka timestamp: when its producer sent it. */
  timestampMs: number;
  /** When the host fetched the record's batch (the host's clock); for the stage metrics. */
  fetchedAtMs?: number;
  /**
   * The HTTP request the record was produced for (its `lattice-request-id` header), for log
   * lines and for the records an actor produces in turn.
   */
  requestId?: string | undefined;
}

/** The last record an actor applied. Persisted in the same transaction as the actor's state. */
export interface AppliedPosition {
  partition: number;
  offset: bigint;
}

export interface Actor<C> {
  /** Loaded from durable state; records at or before it on the same partition are replays. */
  applied(): AppliedPosition | null;
  /**
   * Applies records of this actor's key, oldest first. When it resolves, their effects and the
   * applied position of the last one must be durable; the host commits the Kafka offset after.
   * Throw TerminalError for a record that can never apply, RetryableError (or anything else)
   * for a failure worth retrying.
   */
  handle(records: ActorRecord<C>[]): Promise<void>;
}

export interface ActorKind<C> {
  readonly name: string;
  /** Rehydrates the actor for `key` from durable state, before it sees its first record. */
  load(key: string, partition: number): Promise<Actor<C>>;
}

export function isReplay(
  applied: AppliedPosition | null,
  record: { partition: number; offset: bigint },
): boolean {
  return applied !== null && applied.partition === record.partition && record.offset <= applied.offset;
}
