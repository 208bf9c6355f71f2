export type { ManagementShared } from './role.ts';
export { managementRole } from './role.ts';
export type { RunningManagement } from './server.ts';
