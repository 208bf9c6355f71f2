// The process-wide resources roles share, owned by a composition root (`lattice start`, a test
// harness, a benchmark server): named Redis connections and Kafka clients opened on first use,
// and the realtime services that the edges and management of one process serve together. The
// owner closes it after every role has stopped; the database stays the owner's to close.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ActorsShared } from '@lattice/actors';
import {
  type Clock,
  createSecretHealth,
  type LatticeConfig,
  type Logger,
  reportingKeyring,
  type Scheduler,
  type SealedValueProblem,
  type SecretHealth,
  systemClock,
} from '@lattice/core';
import type { EdgeShared } from '@lattice/edge';
import type { GatewayShared } from '@lattice/gateway';
import type { InboundShared } from '@lattice/inbound';
import { createKafka, createPlannedPlacement, type PartitionPlacement } from '@lattice/kafka';
import {
  type MailHttpRuntime,
  type MailHttpSettings,
  mailHttpSettingsOf,
  startMailHttpRuntime,
} from '@lattice/mail';
import type { ManagementShared } from '@lattice/management';
import {
  createFilesystemPayloadStore,
  createPayloadStoreRegistry,
  type PayloadStoreRegistry,
  type RealtimeHttpRuntime,
  type RealtimeHttpSettings,
  realtimeHttpMetrics,
  realtimeHttpSettingsOf,
  realtimeStages,
  startRealtimeHttpRuntime,
} from '@lattice/realtime';
import { closeRedis, createRedis, createRedisPartitionPlanStore } from '@lattice/redis';
import { checkSealedValues, type Db } from '@lattice/store';
import type { Redis } from 'ioredis';
import { Counter, type Registry } from 'prom-client';
import { SEALED_COLUMNS } from './sealed-columns.ts';
import { secretKeyringOf } from './secret-keys-file.ts';

type Kafka = ReturnType<typeof createKafka>;

export interface RoleSharedOptions {
  config: LatticeConfig;
  logger: Logger;
  registry: Registry;
  db: Db;
  /** Default: the system clock (the scheduler when one is given). */
  clock?: Clock;
  /**
   * The gateways' and the edges' timers, and those of publishes waiting for their offset; default
   * the system's (tests: a ManualScheduler).
   */
  scheduler?: Scheduler;
  /** Default: a client of config.kafkaBrokers per name (tests: a Kafka that is not there). */
  kafka?: (name: string) => Kafka;
  /** Default: the local folder `<config.dataDir>/payloads`, for every product. */
  payloads?: PayloadStoreRegistry;
  /** Changes to the realtime services' settings (tests: quota, publish timeout, policy cache). */
  realtime?: Partial<RealtimeHttpSettings>;
  /** Changes to the mail services' settings (tests: queue timeout). */
  mail?: Partial<MailHttpSettings>;
}

export interface RoleShared extends EdgeShared, ManagementShared, ActorsShared, GatewayShared, InboundShared {
  db: Db;
  /** What the process knows of its sealed values: the last check and request-time failures. */
  secretHealth: SecretHealth;
  /**
   * Checks that the keyring opens what the database holds (a sample per kid and purpose), records
   * the result in secretHealth and answers the problems (docs/operations.md "Secrets at start").
   */
  checkSealedSecrets(): Promise<SealedValueProblem[]>;
  /** Closes the realtime services and every connection opened through redis(). */
  close(): Promise<void>;
}

export function createRoleShared(opts: RoleSharedOptions): RoleShared {
  const { config, logger, registry, db } = opts;
  const clock = opts.clock ?? opts.scheduler ?? systemClock;
  const connections = new Map<string, Redis>();
  const clients = new Map<string, Kafka>();
  let runtime: RealtimeHttpRuntime | undefined;
  let mailRuntime: MailHttpRuntime | undefined;
  let partitionPlacement: PartitionPlacement | undefined;
  // Every role of the process seals and signs with the same keyring; a value that does not open
  // is counted and makes `/healthz` say so.
  const baseKeys = secretKeyringOf(config);
  const secretHealth = createSecretHealth({ clock });
  const unopened = unopenedSecretsCounter(registry);
  const secretKeys = reportingKeyring(baseKeys, (purpose, kid) => {
    unopened.inc({ purpose });
    secretHealth.openFailed(purpose, kid);
  });

  const redis = (name: string): Redis => {
    let connection = connections.get(name);
    if (!connection) {
      connection = createRedis({ url: config.redisUrl, logger, name: `lattice-${name}` });
      connections.set(name, connection);
    }
    return connection;
  };
  const kafka = (name: string): Kafka => {
    let client = clients.get(name);
    if (!client) {
      client =
        opts.kafka?.(name) ??
        createKafka({ brokers: config.kafkaBrokers, clientId: `${config.kafkaClientId}-${name}`, logger });
      clients.set(name, client);
    }
    return client;
  };
  // One per process: the scaling procedure waits for each producing process, not each producer.
  const placement = (): PartitionPlacement => {
    partitionPlacement ??= createPlannedPlacement({
      store: createRedisPartitionPlanStore(redis('partition-plans'), config.redisKeyPrefix),
      producerId: `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
      logger,
      leaseMs: config.partitionPlanLeaseMs,
    });
    return partitionPlacement;
  };
  const realtimeRuntime = () => {
    runtime ??= startRealtimeHttpRuntime(
      { ...realtimeHttpSettingsOf(config), ...opts.realtime },
      {
        db,
        logger,
        keyring: secretKeys,
        redis: redis('realtime'),
        // Subscriber mode: a connection of its own, opened by the first publish that waits.
        subscriber: () => redis('realtime-publish-waits'),
        kafka: kafka('realtime'),
        placement: placement(),
        payloads:
          opts.payloads ??
          createPayloadStoreRegistry({
            store: createFilesystemPayloadStore({ dir: join(config.dataDir, 'payloads') }),
          }),
        metrics: realtimeHttpMetrics(registry),
        stages: realtimeStages(registry),
        clock,
        ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
      },
    );
    return runtime;
  };

  return {
    db,
    logger,
    registry,
    clock,
    redis,
    kafka,
    placement,
    ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
    secretKeys,
    secretHealth,
    async checkSealedSecrets() {
      const problems = await checkSealedValues(db, baseKeys, SEALED_COLUMNS);
      // Malformed values open under no keyring: reported, but not the keyring's health.
      secretHealth.checked(problems.filter((p) => p.reason !== 'malformed'));
      return problems;
    },
    realtime: () => realtimeRuntime().http,
    mail: () => {
      mailRuntime ??= startMailHttpRuntime(
        { ...mailHttpSettingsOf(config), ...opts.mail },
        {
          db,
          logger,
          redis: redis('mail'),
          kafka: kafka('mail'),
          placement: placement(),
          keyring: secretKeys,
          registry,
          clock,
        },
      );
      return mailRuntime.http;
    },
    channelCommands: () => realtimeRuntime().commands,
    async close() {
      // Every connection is closed even when the realtime services fail to close; a second
      // close finds nothing left to close.
      const closing = [runtime, mailRuntime];
      runtime = undefined;
      mailRuntime = undefined;
      try {
        await Promise.all(closing.map((r) => r?.close()));
        await partitionPlacement?.close();
        partitionPlacement = undefined;
      } finally {
        const open = [...connections.values()];
        connections.clear();
        await Promise.all(open.map((c) => closeRedis(c)));
      }
    },
  };
}

const UNOPENED_SECRETS = 'lattice_secrets_unopened_total';

/** One per registry: several role sets may share a registry in tests. */
function unopenedSecretsCounter(registry: Registry): Counter<'purpose'> {
  return (
    (registry.getSingleMetric(UNOPENED_SECRETS) as Counter<'purpose'> | undefined) ??
    new Counter({
      name: UNOPENED_SECRETS,
      help: 'Sealed values that did not open with LATTICE_SECRET_KEYS at the moment they were needed, by purpose',
      labelNames: ['purpose'],
      registers: [registry],
    })
  );
}
