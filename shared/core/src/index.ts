export type { BackoffOptions } from './backoff.ts';
export { backoffDelayMs } from './backoff.ts';
export type { Clock } from './clock.ts';
export { sleep, systemClock } from './clock.ts';
export { forEachConcurrent } from './concurrency.ts';
export type {
  ConfigOverrides,
  Environment,
  GatewayLimits,
  HttpTimeouts,
  LatticeConfig,
  MailConfig,
  PublishQuotaSettings,
  RetentionConfig,
  WebhookConfig,
} from './config.ts';
export { ConfigError, ENVIRONMENTS, loadConfig, portOf } from './config.ts';
export type { ErrorBody, FieldError } from './errors.ts';
export { ApiError, errorMessage, RetryableError, TerminalError } from './errors.ts';
export { isUuid, nameBasedUuid, newId } from './ids.ts';
export type { Logger } from './logger.ts';
export { createLogger, processLogDestination } from './logger.ts';
export { retryWithBackoff } from './retry.ts';
export type { Role, RoleHealth, RunningRole } from './role.ts';
export type { Scheduler, Timer } from './scheduler.ts';
export { systemScheduler } from './scheduler.ts';
export type { SealedValueProblem, SecretHealth } from './secret-health.ts';
export {
  createSecretHealth,
  reportingKeyring,
  SECRET_FAILURE_WINDOW_MS,
  sealedValuesMessage,
} from './secret-health.ts';
export type { SecretKeyring } from './secret-keyring.ts';
export {
  generateSecretKeyEntry,
  openSecret,
  parseSecretKeys,
  SecretKeyError,
  sealSecret,
} from './secret-keyring.ts';
export {
  constantTimeEqual,
  mintSecret,
  parseSecret,
  sameStringConstantTime,
  sha256Hex,
  sha256HexEqual,
  visiblePart,
} from './secrets.ts';
export { createKeyedTurnBatcher, createTurnBatcher } from './turn-batcher.ts';
