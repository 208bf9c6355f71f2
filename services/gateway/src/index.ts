export type { GatewayShared, RunningGatewayRole } from './role.ts';
export { gatewayRole, gatewaySettingsOf } from './role.ts';
export type { GatewaySettings, RunningGateway } from './server.ts';
