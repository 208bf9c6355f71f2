// Channel actors: commands, the pure logic, durable state, the actor kind.
export { createChannelActorKind } from './channel/channel-actor.ts';
export type { ChannelCommandRecord, PresenceCommandInput } from './channel/channel-command.ts';
export { presenceCommandRecord, publishCommandRecord } from './channel/channel-command.ts';
export type { ChannelId } from './channel/channel-id.ts';
export { channelCommandKey } from './channel/channel-id.ts';
export { createNamespacePolicyCache, POLICY_CACHE_TTL_MS } from './channel/policy-cache.ts';
// Fan-out: Redis pub/sub channels and the JSON subscribers receive.
// History: reads for the HTTP layer, and the retention purge.
export { createHistoryPurge } from './history/history-purge.ts';
export type { HistoryAnswer, HistoryReader, HistoryReadResult } from './history/history-reader.ts';
export { createHistoryReader } from './history/history-reader.ts';
// HTTP services shared by the public edge's realtime toolkit and the management API.
export type { ChannelCommandPublisher } from './http/command-publisher.ts';
export type { PublishMessageBody } from './http/message-publisher.ts';
export type { PublishQuota } from './http/publish-quota.ts';
export { PUBLISH_QUOTA_POLICY_NAME } from './http/publish-quota.ts';
export { REALTIME_ERRORS } from './http/realtime-errors.ts';
export type { RealtimeHttp } from './http/realtime-http.ts';
export { realtimeHttpMetrics } from './http/realtime-http-metrics.ts';
export type { RealtimeHttpRuntime, RealtimeHttpSettings } from './http/realtime-http-runtime.ts';
export { realtimeHttpSettingsOf, startRealtimeHttpRuntime } from './http/realtime-http-runtime.ts';
export { namespaceOf } from './names.ts';
export { createPostgresNamespaceRepository } from './namespace-repository.postgres.ts';
export type { NamespaceRecord, NamespaceRepository } from './namespace-repository.ts';
// Payload storage for data over the inline cap.
export { createPayloadStoreRegistry } from './payload/payload-registry.ts';
export { createFilesystemPayloadStore } from './payload/payload-store.fs.ts';
export type { PayloadStoreRegistry } from './payload/payload-store.ts';
// Presence: bounds, reads, and the sweep of expired entries.
export type { PresenceReader } from './presence/presence-reader.ts';
export { createPresenceReader } from './presence/presence-reader.ts';
export type { PresenceSweep } from './presence/presence-sweep.ts';
export { createPresenceSweep } from './presence/presence-sweep.ts';
export type { RealtimeStages } from './realtime-stages.ts';
export { realtimeStages } from './realtime-stages.ts';
export type { RealtimeClaims } from './realtime-token.ts';
export { verifyRealtimeToken } from './realtime-token.ts';
export type { PostgresSigningKeyStoreOptions, SigningKeyStore } from './signing-key-store.ts';
export { REALTIME_SEALED_COLUMNS, SIGNING_KEY_SEAL_PURPOSE } from './signing-key-store.ts';
export type { ChannelGrant, NamespacePolicy, TokenOp, TokenRequestBody } from './token-request.ts';
