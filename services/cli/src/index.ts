// For the other composition roots (integration harnesses, benchmarks): the resources roles
// share, built as `lattice start` builds them.
export type { RoleShared } from './role-shared.ts';
export { createRoleShared } from './role-shared.ts';
