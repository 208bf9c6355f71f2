export { OTHER_ROUTES_BODY_LIMIT_BYTES, PUBLISH_BODY_LIMIT_BYTES } from './limits.ts';
export type { RealtimeToolkitDeps } from './realtime-toolkit.ts';
export { registerRealtimeToolkit } from './realtime-toolkit.ts';
