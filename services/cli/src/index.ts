// For the other composition roots (integration harnesses, benchmarks): the resources roles
// share, built as `lattice start` builds them.

// The roles `lattice start ROLE` runs (the compose file's check reads them).
export { ROLES } from './commands/start.ts';
export type { RoleShared } from './role-shared.ts';
export { createRoleShared } from './role-shared.ts';
