export type { InboundSettings, InboundShared, RunningInboundRole } from './role.ts';
export { inboundRole, inboundSettingsOf } from './role.ts';
