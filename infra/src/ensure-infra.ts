// The one call a composition root makes before using Kafka, Redis and PostgreSQL: reuse what
// answers, start what is missing (recording it for stopInfra), create the databases.
import type { LatticeConfig, Logger } from '@lattice/core';
import { ensureKafka } from './kafka-broker.ts';
import { ensureKafkaCluster } from './kafka-cluster.ts';
import { infraPaths } from './paths.ts';
import { databaseNameOf, databaseUrlFor, ensureDatabase, ensurePostgres } from './postgres.ts';
import { ensureRedis } from './redis.ts';
import { RunStateStore, type ServiceName, withRunLock } from './run-state.ts';

export interface EnsureInfraOptions {
  config: LatticeConfig;
  logger: Logger;
  /** More databases on the server of config.databaseUrl (e.g. ['lattice_test']); the URL's own is always ensured. */
  databases?: string[];
  /** Defaults to infra/.cache. */
  cacheDir?: string;
  /** Searched for redis-server / initdb / postgres before the standard locations (pass the caller's PATH). */
  searchPath?: string;
  kafkaReadyTimeoutMs?: number;
  /** JVM options of a broker we start; default -Xms256m -Xmx768m (a cluster's nodes: -Xms128m -Xmx384m). */
  kafkaJavaOptions?: readonly string[];
  /**
   * Brokers of the local Kafka (`--brokers`): 1, the single broker as ever; more, a cluster of
   * KRaft nodes (kafka-cluster.ts) at the addresses of config.kafkaBrokers. Default: how many
   * addresses config.kafkaBrokers lists.
   */
  kafkaBrokerCount?: number;
  /** Controller ports of a cluster's nodes; default each client port + 100. */
  kafkaControllerPorts?: readonly number[];
}

export interface EnsureInfraResult {
  /** Started by this call; stopInfra({ only: started }) undoes exactly this call. */
  started: ServiceName[];
  /** Already answering (ours from an earlier call, or someone else's); left alone. */
  reused: ServiceName[];
  databasesCreated: string[];
  elapsedMs: number;
}

export async function ensureInfra(opts: EnsureInfraOptions): Promise<EnsureInfraResult> {
  const { config, logger, databases = [], searchPath } = opts;
  const startedMs = Date.now();
  const paths = infraPaths(opts.cacheDir);
  return withRunLock(paths.run.lockDir, logger, async () => {
    const store = new RunStateStore(paths.run.stateFile, logger);
    const common = { config, paths, store, logger };
    const search = searchPath === undefined ? {} : { searchPath };
    // In parallel: the broker's JVM boot dominates, the others finish inside it.
    const names: ServiceName[] = ['kafka', 'postgres', 'redis'];
    const kafkaOptions = {
      ...common,
      ...(opts.kafkaReadyTimeoutMs ? { readyTimeoutMs: opts.kafkaReadyTimeoutMs } : {}),
      ...(opts.kafkaJavaOptions ? { javaOptions: opts.kafkaJavaOptions } : {}),
    };
    const brokerCount = opts.kafkaBrokerCount ?? config.kafkaBrokers.length;
    const outcomes = await Promise.allSettled([
      brokerCount === 1 && config.kafkaBrokers.length === 1
        ? ensureKafka(kafkaOptions)
        : ensureKafkaCluster({
            ...kafkaOptions,
            brokerCount,
            ...(opts.kafkaControllerPorts ? { controllerPorts: opts.kafkaControllerPorts } : {}),
          }),
      ensurePostgres({ ...common, ...search }),
      ensureRedis({ ...common, ...search }),
    ]);
    const started: ServiceName[] = [];
    const reused: ServiceName[] = [];
    const failures: string[] = [];
    outcomes.forEach((o, i) => {
      const name = names[i] as ServiceName;
      if (o.status === 'rejected')
        failures.push(`${name}: ${o.reason instanceof Error ? o.reason.message : String(o.reason)}`);
      else (o.value === 'started' ? started : reused).push(name);
    });
    if (failures.length > 0) {
      const note = started.length ? ` (started ${started.join(', ')}: stop them with stopInfra)` : '';
      throw new Error(`infrastructure not ready${note}\n${failures.join('\n')}`);
    }

    const wanted = [...new Set([databaseNameOf(config.databaseUrl), ...databases])];
    const databasesCreated: string[] = [];
    for (const name of wanted) {
      if (await ensureDatabase(databaseUrlFor(config.databaseUrl, name), { logger }))
        databasesCreated.push(name);
    }
    const elapsedMs = Date.now() - startedMs;
    logger.info({ started, reused, databasesCreated, elapsedMs }, 'infrastructure ready');
    return { started, reused, databasesCreated, elapsedMs };
  });
}
