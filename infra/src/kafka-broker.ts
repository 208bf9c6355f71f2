// A local single-node Kafka (KRaft): configure, format once, start detached, and wait until it
// really answers a metadata request: an open port is not a working broker.
import { execFile } from 'node:child_process';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LatticeConfig, Logger } from '@lattice/core';
import { stopIdleRequestQueuePolling } from '@lattice/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { formatHostPort, type HostPort, isListening, isLocalHost, parseHostPort } from './address.ts';
import { ensureKafkaLibs } from './kafka-fetch.ts';
import {
  type KafkaVoter,
  kafkaLog4jProperties,
  kafkaServerProperties,
  randomClusterId,
} from './kafka-properties.ts';
import { reuseManagedService } from './managed-service.ts';
import type { InfraPaths, KafkaNodePaths } from './paths.ts';
import { pollUntilReady } from './poll.ts';
import { exitedReason, spawnDetached } from './process.ts';
import { type ManagedService, type RunStateStore, withService } from './run-state.ts';

export const DEFAULT_KAFKA_JAVA_OPTIONS: readonly string[] = ['-Xms256m', '-Xmx768m'];

/** An admin client that asks once, quietly, within `timeoutMs`: a probe, not a user of Kafka. */
function probeAdmin(brokers: string[], timeoutMs: number) {
  // Not through createKafka (its retries and logging are for users of Kafka), but with its fix
  // for kafkajs's idle request-queue timers, which Node warns about.
  stopIdleRequestQueuePolling();
  return new Kafka({
    clientId: 'lattice-infra-probe',
    brokers,
    connectionTimeout: timeoutMs,
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
}

/**
 * One metadata round trip (describeCluster + listTopics): how many brokers the cluster reports
 * (registered and not fenced); 0 on any failure.
 */
export async function kafkaBrokersAnswering(brokers: string[], timeoutMs = 2000): Promise<number> {
  const admin = probeAdmin(brokers, timeoutMs);
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    await admin.listTopics();
    return cluster.brokers.length;
  } catch {
    return 0;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * The brokers the cluster reports (registered and not fenced), as `host:port`; null when no seed
 * answers. kafkajs sends a metadata request to a random broker it knows of and fails when that
 * one is down (a broker killed moments ago stays registered until its session expires), so each
 * seed is asked alone, and a few rounds are tried.
 */
export async function kafkaClusterBrokers(
  seeds: readonly string[],
  timeoutMs = 2000,
  rounds = 3,
): Promise<string[] | null> {
  for (let round = 0; round < rounds; round++) {
    for (const seed of seeds) {
      const admin = probeAdmin([seed], timeoutMs);
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        return cluster.brokers.map((b) => formatHostPort({ host: b.host, port: b.port }));
      } catch {
        // the next seed, or the next round
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    }
  }
  return null;
}

/** One metadata round trip (describeCluster + listTopics); false on any failure. */
export async function kafkaAnswers(brokers: string[], timeoutMs = 2000): Promise<boolean> {
  return (await kafkaBrokersAnswering(brokers, timeoutMs)) > 0;
}

export interface WaitForKafkaOptions {
  brokers: string[];
  logger: Logger;
  timeoutMs?: number;
  progressEveryMs?: number;
  /** Reason to stop waiting early, e.g. "the broker process exited". */
  failure?: () => Promise<string | undefined>;
  /** What ready means; default: the brokers answer a metadata request. */
  ready?: () => Promise<boolean>;
}

/** Polls until the brokers answer; resolves with the ms waited. */
export function waitForKafka(opts: WaitForKafkaOptions): Promise<number> {
  const { brokers, logger, timeoutMs = 120_000, progressEveryMs = 5000, failure } = opts;
  return pollUntilReady({
    what: `Kafka at ${brokers.join(',')}`,
    probe: opts.ready ?? (() => kafkaAnswers(brokers)),
    timeoutMs,
    progressEveryMs,
    logger,
    ...(failure ? { failure } : {}),
  });
}

function runJava(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('java', args, { cwd }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        return reject(new Error('"java" not found: install Java 17+'));
      reject(new Error(`java ${args.slice(-6).join(' ')} failed: ${`${stdout}${stderr}`.trim()}`));
    });
  });
}

export async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

export interface LaunchKafkaOptions {
  paths: InfraPaths;
  address: HostPort;
  partitions: number;
  logger: Logger;
  javaOptions?: readonly string[];
  /** A node of a cluster: its id, files, controller port, the quorum and the cluster id. */
  cluster?: {
    nodeId: number;
    node: KafkaNodePaths;
    controllerPort: number;
    voters: readonly KafkaVoter[];
    clusterId: string;
  };
}

/** Writes the config, formats the data dir on first use, starts the JVM detached. */
export async function launchKafkaBroker(opts: LaunchKafkaOptions): Promise<ManagedService> {
  const { paths, address, partitions, logger, javaOptions = DEFAULT_KAFKA_JAVA_OPTIONS, cluster } = opts;
  const k: KafkaNodePaths = cluster?.node ?? paths.kafka;
  await Promise.all(
    [dirname(k.serverProperties), k.dataDir, dirname(k.serverLog), paths.run.dir].map((d) =>
      mkdir(d, { recursive: true }),
    ),
  );
  const controllerPort = cluster?.controllerPort ?? address.port + 1;
  await writeFile(
    k.serverProperties,
    kafkaServerProperties({
      ...address,
      controllerPort,
      dataDir: k.dataDir,
      partitions,
      ...(cluster ? { nodeId: cluster.nodeId, voters: cluster.voters } : {}),
    }),
  );
  await writeFile(k.log4jProperties, kafkaLog4jProperties(k.serverLog));
  const classpath = join(paths.kafka.libsDir, '*'); // java expands the wildcard itself; no shell involved
  const log4j = `-Dlog4j.configuration=file:${k.log4jProperties}`;

  if (!(await exists(join(k.dataDir, 'meta.properties')))) {
    // Every node of a cluster must carry the same id; a single node gets a fresh one.
    const clusterId = cluster?.clusterId ?? randomClusterId();
    logger.info({ clusterId, dataDir: k.dataDir }, 'formatting Kafka storage');
    await runJava(
      [
        log4j,
        '-cp',
        classpath,
        'kafka.tools.StorageTool',
        'format',
        '--ignore-formatted',
        '-t',
        clusterId,
        '-c',
        k.serverProperties,
      ],
      k.dir,
    );
  }

  const pid = await spawnDetached({
    command: 'java',
    args: [
      ...javaOptions,
      '-Djava.awt.headless=true',
      log4j,
      '-cp',
      classpath,
      'kafka.Kafka',
      k.serverProperties,
    ],
    cwd: k.dir,
    logFile: k.stdoutLog,
  });
  await writeFile(k.pidFile, `${pid}\n`);
  logger.info(
    { pid, node: cluster?.nodeId, address: formatHostPort(address), log: k.serverLog },
    'Kafka broker started',
  );
  return {
    name: 'kafka',
    ...(cluster ? { node: cluster.nodeId } : {}),
    pid,
    commandMarker: k.serverProperties,
    address: formatHostPort(address),
    stopSignal: 'SIGTERM',
    startedAt: new Date().toISOString(),
    logFile: k.serverLog,
  };
}

export interface EnsureKafkaOptions {
  config: LatticeConfig;
  paths: InfraPaths;
  store: RunStateStore;
  logger: Logger;
  readyTimeoutMs?: number;
  javaOptions?: readonly string[];
}

/** Reuses whatever answers at config.kafkaBrokers; otherwise starts (and records) a local broker. */
export async function ensureKafka(opts: EnsureKafkaOptions): Promise<'reused' | 'started'> {
  const { config, paths, store, logger, readyTimeoutMs = 120_000 } = opts;
  const brokers = config.kafkaBrokers;
  if (await kafkaAnswers(brokers)) return 'reused';

  const waitForEarlier = (managed: ManagedService) => {
    logger.info({ pid: managed.pid }, 'Kafka started earlier is not answering yet; waiting for it');
    return waitForKafka({
      brokers,
      logger,
      timeoutMs: readyTimeoutMs,
      failure: exitedReason(managed, [paths.kafka.stdoutLog]),
    });
  };
  if (await reuseManagedService('kafka', store, waitForEarlier)) return 'reused';

  const address = parseHostPort(brokers[0] ?? '');
  if (brokers.length !== 1 || !isLocalHost(address.host)) {
    throw new Error(
      `Kafka does not answer at ${brokers.join(',')}; only a single local broker can be started here`,
    );
  }
  if (await isListening(address)) {
    // Maybe a broker someone started by hand that is still booting: give it a moment.
    logger.info({ address: brokers[0] }, 'port is taken but Kafka does not answer yet; waiting');
    await waitForKafka({ brokers, logger, timeoutMs: 30_000 }).catch((err: Error) => {
      throw new Error(
        `${brokers[0]} is in use by something that is not a working Kafka broker: ${err.message}`,
      );
    });
    return 'reused';
  }

  await ensureKafkaLibs({ libsDir: paths.kafka.libsDir, logger });
  const startedMs = Date.now();
  const service = await launchKafkaBroker({
    paths,
    address,
    partitions: config.kafkaPartitions,
    logger,
    ...(opts.javaOptions ? { javaOptions: opts.javaOptions } : {}),
  });
  await store.update((s) => withService(s, service));
  await waitForKafka({
    brokers,
    logger,
    timeoutMs: readyTimeoutMs,
    failure: exitedReason(service, [paths.kafka.stdoutLog]),
  });
  logger.info({ readyMs: Date.now() - startedMs, address: service.address }, 'Kafka broker ready');
  return 'started';
}
