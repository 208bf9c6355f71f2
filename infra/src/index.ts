// Public surface of @lattice/infra: local Kafka (KRaft, from Maven Central), Redis and
// PostgreSQL for development and tests. Internals stay unexported.

export type { EnsureInfraOptions, EnsureInfraResult } from './ensure-infra.ts';
export { ensureInfra } from './ensure-infra.ts';
export type { ServiceStatus } from './infra-status.ts';
export { infraStatus } from './infra-status.ts';
export type { WaitForKafkaOptions } from './kafka-broker.ts';
export {
  DEFAULT_KAFKA_JAVA_OPTIONS,
  kafkaAnswers,
  kafkaBrokersAnswering,
  waitForKafka,
} from './kafka-broker.ts';
export type { KafkaClusterNode } from './kafka-cluster.ts';
export {
  CONTROLLER_PORT_OFFSET,
  clusterBrokers,
  clusterNodes,
  DEFAULT_KAFKA_CLUSTER_JAVA_OPTIONS,
} from './kafka-cluster.ts';
export type { KafkaFetchOptions, KafkaFetchResult } from './kafka-fetch.ts';
export { ensureKafkaLibs, KAFKA_VERSION } from './kafka-fetch.ts';
export type { KafkaServerOptions, KafkaVoter } from './kafka-properties.ts';
export { clusterReplication, kafkaServerProperties } from './kafka-properties.ts';
export type { InfraPaths, KafkaNodePaths } from './paths.ts';
export { DEFAULT_CACHE_DIR, infraPaths, kafkaNodePaths } from './paths.ts';
export { databaseUrlFor, ensureDatabase, postgresAnswers } from './postgres.ts';
export { redisAnswers } from './redis.ts';
export type { ServiceName } from './run-state.ts';
export type { StopInfraOptions, StopInfraResult } from './stop-infra.ts';
export { stopInfra } from './stop-infra.ts';
