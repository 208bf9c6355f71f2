// The `actors` role (`lattice start actors`): the partition actor hosts with the channel actor
// kind and the email-state actor kind, and the realtime maintenance jobs beside them.
import type { Clock, LatticeConfig, Logger, Role, RunningRole } from '@lattice/core';
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import { type ActorHostSettings, startActorsRole } from './actors-role.ts';
import { channelActorRegistration, realtimeJobs } from './channel-actors.ts';
import { emailStateRegistration } from './email-state-actors.ts';

/** The configuration the role reads; tests change fields of it. */
export interface ActorsSettings extends ActorHostSettings {
  /** Fan-out channels are `<prefix>rt:<product>:<env>:<channel>`. */
  redisKeyPrefix: string;
  historyPurgeIntervalMs: number;
  /** A quiet channel's expired presence entry leaves within about this. */
  presenceSweepIntervalMs: number;
  /**
   * The products the maintenance jobs look at; null: every product. Tests sharing a database
   * name their own (or none).
   */
  maintenanceProductIds: readonly string[] | null;
}

export function actorsSettingsOf(config: LatticeConfig): ActorsSettings {
  return {
    kafkaTopicPrefix: config.kafkaTopicPrefix,
    kafkaPartitions: config.kafkaPartitions,
    kafkaReplicationFactor: config.kafkaReplicationFactor,
    sessionTimeoutMs: config.actorsSessionTimeoutMs,
    redisKeyPrefix: config.redisKeyPrefix,
    historyPurgeIntervalMs: 600_000,
    presenceSweepIntervalMs: 5_000,
    maintenanceProductIds: null,
  };
}

/** What the actors role takes from the process that runs it. */
export interface ActorsShared {
  db: Knex;
  logger: Logger;
  registry: Registry;
  clock: Clock;
  /** The process's connection of this name, opened on first use and closed by its owner. */
  redis(name: string): Redis;
  /** The process's Kafka client of this name (client id). */
  kafka(name: string): Kafka;
}

export const actorsRole: Role<ActorsSettings, ActorsShared> = {
  name: 'actors',
  metricsPortOf: (config) => config.actorsPort,
  configOf: actorsSettingsOf,
  async start(settings, shared) {
    const { db, logger, clock } = shared;
    const hosts = await startActorsRole({
      settings,
      kafka: shared.kafka('actors'),
      logger,
      registry: shared.registry,
      kinds: [
        channelActorRegistration({
          db,
          // A command connection: fan-out PUBLISHes on it.
          redis: shared.redis('actors'),
          logger,
          redisKeyPrefix: settings.redisKeyPrefix,
          clock,
        }),
        emailStateRegistration({ db, logger, registry: shared.registry }),
      ],
      jobs: realtimeJobs({
        db,
        logger,
        clock,
        historyPurgeIntervalMs: settings.historyPurgeIntervalMs,
        presenceSweepIntervalMs: settings.presenceSweepIntervalMs,
        ...(settings.maintenanceProductIds ? { productIds: settings.maintenanceProductIds } : {}),
      }),
    });
    const running: RunningRole = {
      close: () => hosts.stop(),
      health: () =>
        hosts.healthy() ? { ok: true } : { ok: false, reason: 'an actor host stopped consuming' },
    };
    return running;
  },
};
