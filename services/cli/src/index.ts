// For the other composition roots (integration harnesses, benchmarks): the resources roles
// share, built as `lattice start` builds them.

// The roles `lattice start ROLE` runs (the compose file's check reads them).
export { ROLES } from './commands/start.ts';
export type { RoleShared } from './role-shared.ts';
export { createRoleShared } from './role-shared.ts';
// Every sealed column `lattice secrets reseal` covers (the suite checks the schema against it).
export { SEALED_COLUMNS } from './sealed-columns.ts';
// For roots that start other processes, which must hold the same keyring (tests, the soak).
export { secretKeysOf } from './secret-keys-file.ts';
