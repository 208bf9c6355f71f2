export type { Actor, ActorKind, ActorRecord, AppliedPosition } from './actor.ts';
export type { ActorHost } from './actor-host.ts';
export { createActorHost } from './actor-host.ts';
export { createKafka } from './client.ts';
export type { Codec } from './codec.ts';
export { createCodec, loadCodec } from './codec.ts';
export type { DeadLetter } from './dead-letters.ts';
export { createKafkaDeadLetterSink } from './dead-letters.ts';
export type { GroupCommitPublisher, GroupCommitPublisherOptions } from './group-commit-publisher.ts';
export { createGroupCommitPublisher, PublishFailedError } from './group-commit-publisher.ts';
export { partitionOfKey } from './key-partition.ts';
export type { RecordProducer, RecordProducerOptions } from './producer.ts';
export { createRecordProducer } from './producer.ts';
export type { ReplicationSetting } from './topics.ts';
export {
  ensureTopics,
  minInsyncFor,
  replicationForBrokers,
  resolveReplication,
  TOPIC_CATALOG,
  topicName,
} from './topics.ts';
