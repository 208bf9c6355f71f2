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
export type { RealtimeClaims, SigningKey, TokenRejection } from './realtime-token.ts';
export { signRealtimeToken, verifyRealtimeToken } from './realtime-token.ts';
export type { SigningKeyStore } from './signing-key-store.ts';
export { createPostgresSigningKeyStore } from './signing-key-store.ts';
export type { ChannelGrant, NamespacePolicy, TokenOp, TokenRequest } from './token-request.ts';
export {
  CHANNELS_MAX,
  narrowGrants,
  parseTokenRequest,
  SUBJECT_MAX,
  TOKEN_OPS,
  TTL_DEFAULT_SECONDS,
  TTL_MAX_SECONDS,
  TTL_MIN_SECONDS,
} from './token-request.ts';
