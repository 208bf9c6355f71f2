// Records an actor can never apply go to the dead-letter topic with their raw bytes, so nothing
// is dropped silently and an operator can inspect or replay them.
import type { Codec } from './codec.ts';
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
