// Channel actors: commands, the pure logic, durable state, the actor kind.
export type { ChannelActorDeps, CreateChannelActorKindOptions } from './channel/channel-actor.ts';
export {
  CHANNEL_ACTOR_KIND,
  channelActorKind,
  createChannelActorKind,
  randomEpoch,
} from './channel/channel-actor.ts';
export type {
  ChannelCommand,
  ChannelCommandBody,
  ChannelCommandRecord,
  ChannelPayload,
  PayloadRefRecord,
  PresenceCommandInput,
  PresenceEnterBody,
  PresenceLeaveBody,
  PresenceUpdateBody,
  PublishBody,
  PublishCommandInput,
} from './channel/channel-command.ts';
export {
  channelIdOf,
  PRESENCE_EXPIRED_REASON,
  presenceCommandRecord,
  publishCommandRecord,
  toChannelCommand,
} from './channel/channel-command.ts';
export type { ChannelEntry, HistoryEntryJson } from './channel/channel-entry.ts';
export { historyEntryJson } from './channel/channel-entry.ts';
export type { ChannelId } from './channel/channel-id.ts';
export { channelCommandKey, parseChannelCommandKey, sameChannel } from './channel/channel-id.ts';
export type { ChannelEffect, DecideContext, Decision } from './channel/channel-logic.ts';
export { decideChannel } from './channel/channel-logic.ts';
export type { ChannelState, PresenceConnection } from './channel/channel-state.ts';
export { newChannelState, RECENT_MESSAGE_IDS_MAX } from './channel/channel-state.ts';
export { createPostgresChannelStore } from './channel/channel-store.postgres.ts';
export type { ChannelCommit, ChannelStore, StoredChannel } from './channel/channel-store.ts';
export { ChannelFencedError } from './channel/channel-store.ts';
export type { NamespacePolicyCacheOptions, NamespacePolicyLookup } from './channel/policy-cache.ts';
export { createNamespacePolicyCache, POLICY_CACHE_TTL_MS } from './channel/policy-cache.ts';
export type { RedisFanOutOptions } from './fanout/fanout.redis.ts';
export { createRedisFanOut } from './fanout/fanout.redis.ts';
// Fan-out: Redis pub/sub channels and the JSON subscribers receive.
export type {
  FanOut,
  FanOutMessage,
  PresenceAction,
  PresenceErrorCode,
  PresenceResult,
} from './fanout/fanout.ts';
export {
  encodeFanOutMessage,
  encodePresenceResult,
} from './fanout/fanout.ts';
// History: reads for the HTTP layer, and the retention purge.
export type { HistoryPurge, HistoryPurgeOptions, HistoryPurgeRun } from './history/history-purge.ts';
export { createHistoryPurge, retentionMs } from './history/history-purge.ts';
export type {
  HistoryAnswer,
  HistoryCursor,
  HistoryReader,
  HistoryReadInput,
  HistoryReadResult,
  HistoryWindow,
} from './history/history-reader.ts';
export {
  createHistoryReader,
  cursorRecovered,
  EMPTY_CHANNEL_EPOCH,
  HISTORY_LAST_N_MAX,
  HISTORY_READ_MAX_ENTRIES,
} from './history/history-reader.ts';
// HTTP services shared by the public edge's realtime toolkit and the management API.
export type { ChannelReadInput, ChannelReads, ChannelReadsDeps, HistoryQuery } from './http/channel-reads.ts';
export {
  createChannelReads,
  EPOCH_MAX,
  HISTORY_QUERY_PARAMS,
  parseHistoryQuery,
  validChannel,
} from './http/channel-reads.ts';
export type { ChannelCommandPublisher, ChannelCommandPublisherOptions } from './http/command-publisher.ts';
export { createChannelCommandPublisher, PublishFailedError } from './http/command-publisher.ts';
export type { IdempotencyClaim, IdempotencyStore, RedisIdempotencyStoreOptions } from './http/idempotency.ts';
export {
  createRedisIdempotencyStore,
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_TTL_MS,
  idempotencyKeyProblem,
} from './http/idempotency.ts';
export type {
  MessagePublisher,
  MessagePublisherDeps,
  PublishAnswer,
  PublishMessageBody,
  PublishRequest,
} from './http/message-publisher.ts';
export {
  createMessagePublisher,
  STORED_PAYLOAD_CONTENT_TYPE,
} from './http/message-publisher.ts';
export type {
  PublishQuota,
  PublishQuotaLimiter,
  PublishQuotaLimiterOptions,
  PublishQuotaMetrics,
  PublishQuotaOutcome,
} from './http/publish-quota.ts';
export {
  checkPublishQuota,
  createPublishQuotaLimiter,
  DEFAULT_PUBLISH_QUOTA,
  PUBLISH_QUOTA_POLICY_NAME,
  publishQuotaBucket,
  publishQuotaOf,
  publishQuotaPolicy,
  softLimitPerWindow,
} from './http/publish-quota.ts';
export { REALTIME_ERRORS, REALTIME_STEP } from './http/realtime-errors.ts';
export type { RealtimeHttp, RealtimeHttpDeps, RealtimePublishingDeps } from './http/realtime-http.ts';
export { createRealtimeHttp } from './http/realtime-http.ts';
export { realtimeHttpMetrics } from './http/realtime-http-metrics.ts';
export type {
  RealtimeHttpRuntime,
  RealtimeHttpRuntimeDeps,
  RealtimeHttpSettings,
} from './http/realtime-http-runtime.ts';
export { realtimeHttpSettingsOf, startRealtimeHttpRuntime } from './http/realtime-http-runtime.ts';
export type { IssuedToken, TokenIssuer, TokenIssuerDeps } from './http/token-issuer.ts';
export { createTokenIssuer } from './http/token-issuer.ts';
export {
  CHANNEL_NAME_MAX,
  CHANNEL_NAME_MIN,
  channelNameProblem,
  GRANT_EXTRA_SEGMENTS_MAX,
  grantMatches,
  grantPatternProblem,
  isNamespaceName,
  NAMESPACE_NAME_MAX,
  namespaceOf,
} from './names.ts';
export { createPostgresNamespaceRepository } from './namespace-repository.postgres.ts';
export type { NamespaceRecord, NamespaceRepository } from './namespace-repository.ts';
// Payload storage for data over the inline cap.
export type { PayloadStoreRegistryOptions } from './payload/payload-registry.ts';
export { createPayloadStoreRegistry } from './payload/payload-registry.ts';
export type { FilesystemPayloadStoreOptions } from './payload/payload-store.fs.ts';
export { createFilesystemPayloadStore } from './payload/payload-store.fs.ts';
export type { S3PayloadStoreOptions } from './payload/payload-store.s3.ts';
export { createS3PayloadStore, PayloadStoreError } from './payload/payload-store.s3.ts';
export type {
  PayloadRef,
  PayloadStore,
  PayloadStoreRegistry,
  StoredPayload,
} from './payload/payload-store.ts';
export { INLINE_PAYLOAD_MAX_BYTES } from './payload/payload-store.ts';
export type { SigV4Credentials } from './payload/sigv4.ts';
// Presence: bounds, reads, and the sweep of expired entries.
export type {
  PresenceReader,
  PresenceReadInput,
  PresenceRefusal,
  PresenceRosterResult,
  PresenceStatsResult,
} from './presence/presence-reader.ts';
export { createPresenceReader } from './presence/presence-reader.ts';
export type { PresenceMember } from './presence/presence-rules.ts';
export {
  PRESENCE_INFO_MAX_BYTES,
  PRESENCE_MAX_MEMBERS,
  PRESENCE_TTL_DEFAULT_SECONDS,
  PRESENCE_TTL_MAX_SECONDS,
  PRESENCE_TTL_MIN_SECONDS,
  presenceInfoProblem,
  presenceTtlProblem,
} from './presence/presence-rules.ts';
export type { PresenceSweep, PresenceSweepOptions } from './presence/presence-sweep.ts';
export { createPresenceSweep } from './presence/presence-sweep.ts';
export type { RealtimeClaims, SigningKey, TokenRejection } from './realtime-token.ts';
export { signRealtimeToken, verifyRealtimeToken } from './realtime-token.ts';
export type { SigningKeyStore } from './signing-key-store.ts';
export { createPostgresSigningKeyStore } from './signing-key-store.ts';
export type {
  ChannelGrant,
  NamespacePolicy,
  TokenOp,
  TokenRequest,
  TokenRequestBody,
} from './token-request.ts';
export {
  CHANNELS_MAX,
  narrowGrants,
  SUBJECT_MAX,
  TOKEN_OPS,
  TTL_DEFAULT_SECONDS,
  TTL_MAX_SECONDS,
  TTL_MIN_SECONDS,
  tokenRequestOf,
} from './token-request.ts';
