export type { KeyCheckInput, KeyCheckResult, KeyFinder, KeySnapshot, SnapshotKey } from './key-check.ts';
export {
  checkPublicKey,
  createKeySnapshot,
  findPresentedKey,
  KEY_CHECK_ERRORS,
  KEY_CHECK_STEP,
} from './key-check.ts';
export type { IssuedKey } from './key-issue.ts';
export { issueMailKey, issuePublicKey, issueRealtimeKey } from './key-issue.ts';
export type { MintedKey } from './key-material.ts';
export { KEY_PREFIXES, keyPrefixOf, mintKey } from './key-material.ts';
export type { KeyPage } from './key-page.ts';
export { createPostgresMailKeyRepository } from './mail-key-repository.postgres.ts';
export type {
  ActiveMailKey,
  MailKeyRecord,
  MailKeyRepository,
  MailKeyScope,
  NewMailKey,
} from './mail-key-repository.ts';
export { MAIL_KEY_SCOPES } from './mail-key-repository.ts';
export { PUBLIC_KEY_HEADERS, readPresentedKey } from './presented-key.ts';
export { createPostgresAreaKeyImporter } from './public-key-import.postgres.ts';
export type { AreaKeyImporter } from './public-key-import.ts';
export { IMPORT_ENVIRONMENT, importedScope, UNNAMED_REALTIME_IMPORT_NAME } from './public-key-import.ts';
export { createPostgresPublicKeyRepository } from './public-key-repository.postgres.ts';
export type {
  ImportSource,
  KeyChanges,
  NewPublicKey,
  PublicKeyRecord,
  PublicKeyRepository,
  PublicKeyStatus,
} from './public-key-repository.ts';
export { createPostgresRealtimeKeyRepository } from './realtime-key-repository.postgres.ts';
export type {
  ActiveRealtimeKey,
  NewRealtimeKey,
  RealtimeKeyRecord,
  RealtimeKeyRepository,
} from './realtime-key-repository.ts';
export type { PublicKeyScope } from './scope.ts';
export { parseScope, scopeCovers, toolkitsReached } from './scope.ts';
