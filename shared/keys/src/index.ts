export type { KeyCheckInput, KeyCheckResult, KeySnapshot, SnapshotKey } from './key-check.ts';
export { checkPublicKey, createKeySnapshot, KEY_CHECK_ERRORS, KEY_CHECK_STEP } from './key-check.ts';
export type { MintedKey } from './key-material.ts';
export { KEY_PREFIXES, keyPrefixOf, mintKey } from './key-material.ts';
export { PUBLIC_KEY_HEADERS, readPresentedKey, stripKeyHeaders } from './presented-key.ts';
export { createPostgresPublicKeyRepository } from './public-key-repository.postgres.ts';
export type {
  ImportSource,
  NewPublicKey,
  PublicKeyRecord,
  PublicKeyRepository,
  PublicKeyStatus,
} from './public-key-repository.ts';
export type { PublicMethod, PublicRoute, RouteMatch, Toolkit } from './public-routes.ts';
export {
  allowedMethods,
  findKeyedRoute,
  isToolkit,
  matchPublicRoute,
  PUBLIC_ROUTES,
  TOOLKITS,
} from './public-routes.ts';
export type { PublicKeyScope } from './scope.ts';
export { parseScope, scopeCovers, toolkitsReached } from './scope.ts';
