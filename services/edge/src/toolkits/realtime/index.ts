export type { RealtimeToolkitDeps } from './realtime-toolkit.ts';
export { realtimeToolkit } from './realtime-toolkit.ts';
