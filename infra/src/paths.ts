// Where local infrastructure lives on disk. Everything is under one ignored folder (infra/.cache)
// so a `rm -rf infra/.cache` after `stopInfra` is a complete reset.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_CACHE_DIR = fileURLToPath(new URL('../.cache', import.meta.url));

/** The Maven project that names the Kafka jars (see infra/kafka/pom.xml). */
export const KAFKA_POM_FILE = fileURLToPath(new URL('../kafka/pom.xml', import.meta.url));

/** The files of one Kafka node: its configuration, data, logs and pid file. */
export interface KafkaNodePaths {
  dir: string;
  dataDir: string;
  serverProperties: string;
  log4jProperties: string;
  serverLog: string;
  stdoutLog: string;
  pidFile: string;
}

export interface InfraPaths {
  cacheDir: string;
  run: { dir: string; stateFile: string; lockDir: string };
  /** The single broker's node files at the top (as ever), plus what every mode shares. */
  kafka: KafkaNodePaths & {
    /** The jars, shared by the single broker and every node of a cluster. */
    libsDir: string;
    /** The KRaft cluster id every node of a local cluster is formatted with. */
    clusterIdFile: string;
  };
  postgres: { dir: string; dataDir: string; log: string };
  redis: { dir: string; dataDir: string; log: string };
}

export function infraPaths(cacheDir: string = DEFAULT_CACHE_DIR): InfraPaths {
  const run = join(cacheDir, 'run');
  const kafka = join(cacheDir, 'kafka');
  const postgres = join(cacheDir, 'postgres');
  const redis = join(cacheDir, 'redis');
  return {
    cacheDir,
    run: { dir: run, stateFile: join(run, 'state.json'), lockDir: join(run, 'lock') },
    kafka: {
      dir: kafka,
      libsDir: join(kafka, 'libs'),
      dataDir: join(kafka, 'data'),
      serverProperties: join(kafka, 'config', 'server.properties'),
      log4jProperties: join(kafka, 'config', 'log4j.properties'),
      serverLog: join(kafka, 'logs', 'server.log'),
      stdoutLog: join(kafka, 'logs', 'stdout.log'),
      pidFile: join(run, 'kafka.pid'),
      clusterIdFile: join(kafka, 'cluster', 'cluster-id'),
    },
    postgres: { dir: postgres, dataDir: join(postgres, 'data'), log: join(postgres, 'postgres.log') },
    redis: { dir: redis, dataDir: join(redis, 'data'), log: join(redis, 'redis.log') },
  };
}

/**
 * Node `nodeId` of a local multi-broker cluster (`lattice infra up --brokers N`): a folder of its
 * own beside the single broker's, so switching between the modes never mixes their data.
 */
export function kafkaNodePaths(paths: InfraPaths, nodeId: number): KafkaNodePaths {
  const dir = join(paths.kafka.dir, 'cluster', `node-${nodeId}`);
  return {
    dir,
    dataDir: join(dir, 'data'),
    serverProperties: join(dir, 'config', 'server.properties'),
    log4jProperties: join(dir, 'config', 'log4j.properties'),
    serverLog: join(dir, 'logs', 'server.log'),
    stdoutLog: join(dir, 'logs', 'stdout.log'),
    pidFile: join(paths.run.dir, `kafka-${nodeId}.pid`),
  };
}
