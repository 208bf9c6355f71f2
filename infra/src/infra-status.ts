// A read-only look: does each service answer, and did we start it?
import { createLogger, type LatticeConfig, type Logger } from '@lattice/core';
import { formatHostPort, hostPortOfUrl, isListening, parseHostPort } from './address.ts';
import { kafkaAnswers, kafkaClusterBrokers } from './kafka-broker.ts';
import { infraPaths } from './paths.ts';
import { postgresAnswers } from './postgres.ts';
import { processMatches } from './process.ts';
import { redisAnswers } from './redis.ts';
import {
  findService,
  type ManagedService,
  type RunState,
  readRunState,
  type ServiceName,
} from './run-state.ts';

export interface ServiceStatus {
  name: ServiceName;
  /** A broker of a multi-broker Kafka: its node id (its position in KAFKA_BROKERS, or as recorded). */
  node?: number;
  address: string;
  answering: boolean;
  /** Pid when ensureInfra started it and it still runs; null when it is someone else's or down. */
  managedPid: number | null;
}

export async function infraStatus(
  config: LatticeConfig,
  opts: { cacheDir?: string; logger?: Logger } = {},
): Promise<ServiceStatus[]> {
  const paths = infraPaths(opts.cacheDir);
  const logger = opts.logger ?? createLogger({ name: 'infra', level: 'silent' });
  const state = await readRunState(paths.run.stateFile, logger);
  const managedPid = async (s: ManagedService | undefined) =>
    s && (await processMatches(s.pid, s.commandMarker)) ? s.pid : null;
  const [kafka, postgres, redis] = await Promise.all([
    kafkaStatus(config.kafkaBrokers, state),
    postgresAnswers(config.databaseUrl),
    redisAnswers(config.redisUrl),
  ]);
  return [
    ...kafka,
    {
      name: 'postgres',
      address: formatHostPort(hostPortOfUrl(config.databaseUrl, 5432)),
      answering: postgres,
      managedPid: await managedPid(findService(state, 'postgres')),
    },
    {
      name: 'redis',
      address: formatHostPort(hostPortOfUrl(config.redisUrl, 6379)),
      answering: redis,
      managedPid: await managedPid(findService(state, 'redis')),
    },
  ];

  /**
   * One line for a single broker (as ever); for several, one per broker of KAFKA_BROKERS, then
   * one per recorded broker that KAFKA_BROKERS does not name (a cluster `up` started that the
   * environment of this call does not point at).
   */
  async function kafkaStatus(brokers: string[], recorded: RunState): Promise<ServiceStatus[]> {
    const kafkaEntries = recorded.services.filter((s) => s.name === 'kafka');
    const byAddress = (address: string) => kafkaEntries.find((s) => s.address === address);
    if (brokers.length === 1 && kafkaEntries.every((s) => s.node === undefined)) {
      const address = brokers.join(',');
      return [
        {
          name: 'kafka',
          address,
          answering: await kafkaAnswers(brokers),
          managedPid: await managedPid(findService(recorded, 'kafka') ?? byAddress(address)),
        },
      ];
    }
    // A broker is up when it listens and the cluster reports it (kafka-cluster.ts, clusterAnswers).
    const all = [...brokers, ...kafkaEntries.map((s) => s.address).filter((a) => !brokers.includes(a))];
    const reported = (await kafkaClusterBrokers(all)) ?? [];
    const up = async (address: string) =>
      reported.includes(formatHostPort(parseHostPort(address))) &&
      (await isListening(parseHostPort(address), 500));
    const lines: ServiceStatus[] = [];
    for (const [i, address] of brokers.entries()) {
      const entry = byAddress(address);
      lines.push({
        name: 'kafka',
        node: entry?.node ?? i + 1,
        address,
        answering: await up(address),
        managedPid: await managedPid(entry),
      });
    }
    for (const entry of kafkaEntries) {
      if (brokers.includes(entry.address)) continue;
      lines.push({
        name: 'kafka',
        ...(entry.node === undefined ? {} : { node: entry.node }),
        address: entry.address,
        answering: await up(entry.address),
        managedPid: await managedPid(entry),
      });
    }
    return lines;
  }
}
