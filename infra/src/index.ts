// Public surface of @lattice/infra: local Kafka (KRaft, from Maven Central), Redis and
// PostgreSQL for development and tests. Internals stay unexported.

export type { EnsureInfraOptions, EnsureInfraResult } from './ensure-infra.ts';
export { ensureInfra } from './ensure-infra.ts';
export type { ServiceStatus } from './infra-status.ts';
export { infraStatus } from './infra-status.ts';
export type { WaitForKafkaOptions } from './kafka-broker.ts';
export { DEFAULT_KAFKA_JAVA_OPTIONS, kafkaAnswers, waitForKafka } from './kafka-broker.ts';
export type { KafkaFetchOptions, KafkaFetchResult } from './kafka-fetch.ts';
export { ensureKafkaLibs, KAFKA_VERSION } from './kafka-fetch.ts';
export type { KafkaServerOptions } from './kafka-properties.ts';
export { kafkaServerProperties } from './kafka-properties.ts';
export type { InfraPaths } from './paths.ts';
export { DEFAULT_CACHE_DIR, infraPaths } from './paths.ts';
export { databaseUrlFor, ensureDatabase, postgresAnswers } from './postgres.ts';
export { redisAnswers } from './redis.ts';
export type { ServiceName } from './run-state.ts';
export type { StopInfraOptions, StopInfraResult } from './stop-infra.ts';
export { stopInfra } from './stop-infra.ts';
