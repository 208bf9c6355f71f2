// The `edge` role, one per environment (`lattice start edge --env production`): the public edge
// with the toolkits mounted. The one place where the edge's toolkits are put together.
import type { Clock, Environment, Logger, Role, RoleHealth, RunningRole, Scheduler } from '@lattice/core';
import type { PublicHandlers } from '@lattice/http';
import type { MailHttp } from '@lattice/mail';
import type { RealtimeHttp } from '@lattice/realtime';
import type { DbExecutor } from '@lattice/store';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { type EdgeSettings, edgeSettingsOf, type RunningEdge, startEdge } from './server.ts';
import { mailToolkit } from './toolkits/mail/index.ts';
import { realtimeToolkit } from './toolkits/realtime/index.ts';

/** What an edge takes from the process that runs it. */
export interface EdgeShared {
  /** Where the public keys are read from. */
  db: DbExecutor;
  logger: Logger;
  registry: Registry;
  clock: Clock;
  /** Runs the key snapshot's timers; default the system's (tests: a ManualScheduler). */
  scheduler?: Scheduler;
  /** The process's connection of this name, opened on first use and closed by its owner. */
  redis(name: string): Redis;
  /** The realtime services, shared with management when both run in one process. */
  realtime(): RealtimeHttp;
  /** The mail services, shared with management when both run in one process. */
  mail(): MailHttp;
  /**
   * Replaces the toolkits the role mounts: tests of the edge's own steps (an echo toolkit, or
   * none at all) and the edge benchmark's trivial handler.
   */
  toolkits?: readonly PublicHandlers[];
}

export type RunningEdgeRole = RunningEdge & RunningRole & { url: string };

function toolkitsOf(shared: EdgeShared): readonly PublicHandlers[] {
  return (
    shared.toolkits ?? [
      mailToolkit({ mail: shared.mail() }),
      realtimeToolkit({ realtime: shared.realtime() }),
    ]
  );
}

export function edgeRole(environment: Environment): Role<EdgeSettings, EdgeShared, RunningEdgeRole> {
  return {
    name: `edge-${environment}`,
    configOf: (config) => edgeSettingsOf(config, environment),
    // The edge's own port is public, so its metrics are served elsewhere when it runs alone.
    metricsPortOf: (config) => config.edgeMetricsPorts[environment],
    async start(settings, shared) {
      const edge = await startEdge(settings, {
        db: shared.db,
        redis: shared.redis(`edge-${environment}`),
        subscriber: settings.keyChangeNotifications ? shared.redis(`edge-${environment}-key-changes`) : null,
        logger: shared.logger,
        registry: shared.registry,
        toolkits: toolkitsOf(shared),
        clock: shared.clock,
        ...(shared.scheduler ? { scheduler: shared.scheduler } : {}),
      });
      return {
        ...edge,
        health: (): RoleHealth =>
          edge.snapshots.current() !== null
            ? { ok: true }
            : { ok: false, reason: 'no key snapshot loaded yet' },
      };
    },
  };
}
