export { createEdgeApp } from './app.ts';
export { createKeySnapshotHolder } from './key-snapshot-holder.ts';
export { perIpPolicy } from './per-ip-limit.ts';
export type { EdgeShared } from './role.ts';
export { edgeRole } from './role.ts';
export type { RunningEdge } from './server.ts';
