// Records an actor can never apply go to the dead-letter topic with their raw bytes, so nothing
// is dropped silently and an operator can inspect or replay them.
import { type BackoffOptions, errorMessage, retryWithBackoff, type Scheduler } from '@lattice/core';
import { type Codec, CodecError } from './codec.ts';
import type { RecordProducer } from './producer.ts';

export interface DeadLetter {
  source_topic: string;
  source_partition: number;
  source_offset: string;
  key: string | null;
  value: Buffer | null;
  error: string;
  failed_at_ms: number;
}

export interface DeadLetterSink {
  send(letter: DeadLetter): Promise<void>;
}

export function createKafkaDeadLetterSink(
  producer: RecordProducer,
  topic: string,
  codec: Codec<DeadLetter>,
): DeadLetterSink {
  return {
    send: (letter) => producer.send(topic, codec, [{ key: letter.source_topic, value: letter }]),
  };
}

/** Kafka refuses some records for good (e.g. MESSAGE_TOO_LARGE); retrying them cannot help. */
function isPermanentSendError(err: unknown): boolean {
  return err instanceof CodecError || (err as { retriable?: boolean } | null)?.retriable === false;
}

export interface DeadLetterSendOptions {
  scheduler: Scheduler;
  backoff: BackoffOptions;
  /** Called after a transient failure, before the wait; throw to give up. */
  beforeRetry(err: unknown, attempt: number): void;
}

/**
 * Sends a letter, retrying transient failures with backoff; a letter Kafka refuses for good is
 * sent again at once without its value (the raw bytes are lost, the record's position is not).
 * Resolves with the letter as sent.
 */
export async function sendDeadLetter(
  sink: DeadLetterSink,
  letter: DeadLetter,
  opts: DeadLetterSendOptions,
): Promise<DeadLetter> {
  let sent = letter;
  await retryWithBackoff(() => sink.send(sent), {
    scheduler: opts.scheduler,
    backoff: opts.backoff,
    beforeRetry(err, attempt) {
      if (sent.value !== null && isPermanentSendError(err)) {
        sent = { ...sent, value: null, error: `${sent.error} (value dropped: ${errorMessage(err)})` };
        return 0;
      }
      opts.beforeRetry(err, attempt);
      return undefined;
    },
  });
  return sent;
}
