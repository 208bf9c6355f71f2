// The `gateway` role, one per environment (`lattice start gateway --env production`): the realtime
// WebSocket gateway on the port of the environment's gateway URL. Its metrics are served on a
// port of their own when it runs alone (GATEWAY_METRICS_PORT, GATEWAY_DEV_METRICS_PORT).
import {
  type Clock,
  type Environment,
  type LatticeConfig,
  type Logger,
  portOf,
  type Role,
  type RoleHealth,
  type RunningRole,
  type Scheduler,
  systemScheduler,
} from '@lattice/core';
import type { ChannelCommandPublisher, RealtimeHttp } from '@lattice/realtime';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { GatewayDemoSettings } from './demo.ts';
import { type GatewaySettings, type RunningGateway, startGateway } from './server.ts';

/** What a gateway takes from the process that runs it. */
export interface GatewayShared {
  logger: Logger;
  registry: Registry;
  clock: Clock;
  /** Timers of the protocol (auth timeout, token expiry, heartbeats); default the system's. */
  scheduler?: Scheduler;
  /** The process's connection of this name, opened on first use and closed by its owner. */
  redis(name: string): Redis;
  /** The realtime services: signing keys, history and presence reads. */
  realtime(): RealtimeHttp;
  /** Where presence commands are produced for the channel actors. */
  channelCommands(): ChannelCommandPublisher;
}

export type RunningGatewayRole = RunningGateway & RunningRole & { url: string };

export function gatewaySettingsOf(config: LatticeConfig, environment: Environment): GatewaySettings {
  return {
    environment,
    host: config.host,
    port: portOf(config.gatewayUrls[environment]),
    limits: config.gateway,
    redisKeyPrefix: config.redisKeyPrefix,
    closeHandshakeMs: 30_000,
    presenceTimeoutMs: 10_000,
    authTimeoutMs: 10_000,
    httpTimeouts: config.httpTimeouts,
  };
}

/** The browser client's bundle, built on the demo page's first request (esbuild, ~50 ms). */
async function browserBundle(): Promise<string> {
  const { buildBrowserBundle } = await import('@lattice/realtime-client/build');
  return buildBrowserBundle();
}

export interface GatewayRoleOptions {
  /** Serve the local demo for this product (`lattice start` only; never on a deployed gateway). */
  demo?: GatewayDemoSettings;
}

export function gatewayRole(
  environment: Environment,
  options: GatewayRoleOptions = {},
): Role<GatewaySettings, GatewayShared, RunningGatewayRole> {
  return {
    name: `gateway-${environment}`,
    configOf: (config) => ({ ...gatewaySettingsOf(config, environment), demo: options.demo ?? null }),
    metricsPortOf: (config) => config.gatewayMetricsPorts[environment],
    async start(settings, shared) {
      const subscriber = shared.redis(`gateway-${environment}-subscriber`);
      const gateway = await startGateway(settings, {
        subscriber,
        publisher: shared.redis(`gateway-${environment}`),
        realtime: shared.realtime(),
        commands: shared.channelCommands(),
        scheduler: shared.scheduler ?? systemScheduler,
        logger: shared.logger,
        registry: shared.registry,
        bundle: browserBundle,
      });
      return {
        ...gateway,
        // A draining gateway refuses new clients: health checks take it out of rotation at once.
        // Without its fan-out connection a gateway accepts clients it cannot deliver to.
        health: (): RoleHealth => {
          if (gateway.draining()) return { ok: false, reason: 'draining: closing its connections' };
          return gateway.healthy()
            ? { ok: true }
            : { ok: false, reason: `fan-out connection to Redis is ${subscriber.status}` };
        },
      };
    },
  };
}
