// A read-only look: does each service answer, and did we start it?
import { createLogger, type LatticeConfig, type Logger } from '@lattice/core';
import { formatHostPort, hostPortOfUrl } from './address.ts';
import { kafkaAnswers } from './kafka-broker.ts';
import { infraPaths } from './paths.ts';
import { postgresAnswers } from './postgres.ts';
import { processMatches } from './process.ts';
import { redisAnswers } from './redis.ts';
import { findService, readRunState, type ServiceName } from './run-state.ts';

export interface ServiceStatus {
  name: ServiceName;
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
  const managedPid = async (name: ServiceName) => {
    const s = findService(state, name);
    return s && (await processMatches(s.pid, s.commandMarker)) ? s.pid : null;
  };
  const [kafka, postgres, redis] = await Promise.all([
    kafkaAnswers(config.kafkaBrokers),
    postgresAnswers(config.databaseUrl),
    redisAnswers(config.redisUrl),
  ]);
  return [
    {
      name: 'kafka',
      address: config.kafkaBrokers.join(','),
      answering: kafka,
      managedPid: await managedPid('kafka'),
    },
    {
      name: 'postgres',
      address: formatHostPort(hostPortOfUrl(config.databaseUrl, 5432)),
      answering: postgres,
      managedPid: await managedPid('postgres'),
    },
    {
      name: 'redis',
      address: formatHostPort(hostPortOfUrl(config.redisUrl, 6379)),
      answering: redis,
      managedPid: await managedPid('redis'),
    },
  ];
}
