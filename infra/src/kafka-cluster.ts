// A local Kafka cluster of N KRaft nodes (`lattice infra up --brokers 3`): each node both broker
// and controller (an N-voter quorum), from the same jars as the single broker, each with its own
// data dir, logs and pid under infra/.cache/kafka/cluster. Nodes started earlier that still run
// are kept; a node that is gone (killed, crashed) is started again on its own data, so running
// `up` again after losing a broker brings the cluster back to N.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LatticeConfig, Logger } from '@lattice/core';
import { formatHostPort, type HostPort, isListening, isLocalHost, parseHostPort } from './address.ts';
import { kafkaClusterBrokers, launchKafkaBroker, waitForKafka } from './kafka-broker.ts';
import { ensureKafkaLibs } from './kafka-fetch.ts';
import { type KafkaVoter, randomClusterId } from './kafka-properties.ts';
import { type InfraPaths, kafkaNodePaths } from './paths.ts';
import { exitedReason, processMatches } from './process.ts';
import {
  findService,
  type ManagedService,
  type RunStateStore,
  withoutService,
  withService,
} from './run-state.ts';

/** A cluster node's controller listens at its client port plus this, unless told otherwise. */
export const CONTROLLER_PORT_OFFSET = 100;

/** Three JVMs share one developer machine: each gets less heap than the single broker. */
export const DEFAULT_KAFKA_CLUSTER_JAVA_OPTIONS: readonly string[] = ['-Xms128m', '-Xmx384m'];

export interface KafkaClusterNode {
  nodeId: number;
  address: HostPort;
  controllerPort: number;
}

/**
 * The nodes of a cluster of `count` brokers. Client addresses: the `brokers` list when it names
 * `count` of them (KAFKA_BROKERS), or `count` consecutive ports from its one address. Node ids
 * follow the list's order from 1.
 */
export function clusterNodes(
  brokers: readonly string[],
  count: number,
  controllerPorts?: readonly number[],
): KafkaClusterNode[] {
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`a cluster needs 1 broker or more, got ${count}`);
  let addresses: HostPort[];
  if (brokers.length === count) addresses = brokers.map(parseHostPort);
  else if (brokers.length === 1) {
    const first = parseHostPort(brokers[0]!);
    addresses = Array.from({ length: count }, (_, i) => ({ host: first.host, port: first.port + i }));
  } else {
    throw new Error(
      `KAFKA_BROKERS lists ${brokers.length} addresses for ${count} brokers: list ${count}, or one`,
    );
  }
  if (controllerPorts && controllerPorts.length !== count)
    throw new Error(`${controllerPorts.length} controller ports for ${count} brokers`);
  const nodes = addresses.map((address, i) => ({
    nodeId: i + 1,
    address,
    controllerPort: controllerPorts?.[i] ?? address.port + CONTROLLER_PORT_OFFSET,
  }));
  const ports = nodes.flatMap((n) => [
    `${n.address.host}:${n.address.port}`,
    `${n.address.host}:${n.controllerPort}`,
  ]);
  const clash = ports.find((p, i) => ports.indexOf(p) !== i);
  if (clash) throw new Error(`port ${clash} is used twice by the cluster's brokers and controllers`);
  for (const p of [...nodes.map((n) => n.address.port), ...nodes.map((n) => n.controllerPort)]) {
    if (p < 1 || p > 65535) throw new Error(`port ${p} out of range`);
  }
  return nodes;
}

/** The client addresses of the nodes: what KAFKA_BROKERS must say for the roles. */
export function clusterBrokers(nodes: readonly KafkaClusterNode[]): string[] {
  return nodes.map((n) => formatHostPort(n.address));
}

/**
 * The cluster id every node is formatted with: kept in the cache (read back from a node's
 * meta.properties when the file was lost), made once.
 */
async function clusterIdOf(paths: InfraPaths, nodes: readonly KafkaClusterNode[]): Promise<string> {
  const file = paths.kafka.clusterIdFile;
  const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (kept) return kept;
  let id: string | undefined;
  for (const n of nodes) {
    const meta = await readFile(
      join(kafkaNodePaths(paths, n.nodeId).dataDir, 'meta.properties'),
      'utf8',
    ).catch(() => '');
    id = /^cluster\.id=(.+)$/m.exec(meta)?.[1]?.trim();
    if (id) break;
  }
  id ??= randomClusterId();
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${id}\n`);
  return id;
}

/**
 * Every broker listens and the cluster reports each of them. The cluster's word alone is not
 * enough: a broker killed moments ago stays registered until its session times out (9 s); a
 * broker starting again listens before it is let in (unfenced).
 */
export async function clusterAnswers(brokers: readonly string[]): Promise<boolean> {
  const listening = await Promise.all(brokers.map((b) => isListening(parseHostPort(b), 500)));
  if (!listening.every(Boolean)) return false;
  // Every broker must report every broker: a broker's view of the cluster lags the controller's
  // while it catches up, and whatever is created next asks any one of them (topics with
  // replication 'cluster' were made with one copy when the broker asked still saw only itself).
  for (const seed of brokers) {
    const reported = await kafkaClusterBrokers([seed], 2000, 1);
    if (reported === null || !brokers.every((b) => reported.includes(formatHostPort(parseHostPort(b)))))
      return false;
  }
  return true;
}

export interface EnsureKafkaClusterOptions {
  config: LatticeConfig;
  paths: InfraPaths;
  store: RunStateStore;
  logger: Logger;
  brokerCount: number;
  controllerPorts?: readonly number[];
  readyTimeoutMs?: number;
  javaOptions?: readonly string[];
}

/**
 * Reuses a cluster that answers with every broker; otherwise starts (and records) the nodes
 * that are not running, then waits until the cluster reports them all.
 */
export async function ensureKafkaCluster(opts: EnsureKafkaClusterOptions): Promise<'reused' | 'started'> {
  const { config, paths, store, logger, brokerCount, readyTimeoutMs = 120_000 } = opts;
  const nodes = clusterNodes(config.kafkaBrokers, brokerCount, opts.controllerPorts);
  const brokers = clusterBrokers(nodes);
  if (await clusterAnswers(brokers)) return 'reused';

  const state = await store.read();
  const running: ManagedService[] = [];
  const missing: KafkaClusterNode[] = [];
  for (const n of nodes) {
    const managed = findService(state, 'kafka', n.nodeId);
    const alive = managed && (await processMatches(managed.pid, managed.commandMarker));
    if (managed && alive && managed.address === formatHostPort(n.address)) {
      running.push(managed);
      continue;
    }
    if (managed) await store.update((s) => withoutService(s, 'kafka', n.nodeId));
    const where = formatHostPort(n.address);
    // Someone else's broker, or one still booting: waited for below, never started twice.
    if (await isListening(n.address)) continue;
    if (!isLocalHost(n.address.host))
      throw new Error(`Kafka broker ${where} does not answer and is not on this machine`);
    if (await isListening({ host: n.address.host, port: n.controllerPort }))
      throw new Error(`cannot start Kafka node ${n.nodeId} at ${where}: port ${n.controllerPort} is in use`);
    missing.push(n);
  }

  if (missing.length > 0) {
    await ensureKafkaLibs({ libsDir: paths.kafka.libsDir, logger });
    const clusterId = await clusterIdOf(paths, nodes);
    const voters: KafkaVoter[] = nodes.map((n) => ({
      nodeId: n.nodeId,
      host: n.address.host,
      controllerPort: n.controllerPort,
    }));
    // In parallel: each node's storage format is a JVM start of its own. Every launch is
    // recorded before a failure of another is reported, so stopInfra finds them all.
    const launched = await Promise.allSettled(
      missing.map(async (n) => {
        const service = await launchKafkaBroker({
          paths,
          address: n.address,
          partitions: config.kafkaPartitions,
          logger,
          javaOptions: opts.javaOptions ?? DEFAULT_KAFKA_CLUSTER_JAVA_OPTIONS,
          cluster: {
            nodeId: n.nodeId,
            node: kafkaNodePaths(paths, n.nodeId),
            controllerPort: n.controllerPort,
            voters,
            clusterId,
          },
        });
        await store.update((s) => withService(s, service));
        return service;
      }),
    );
    for (const l of launched) if (l.status === 'fulfilled') running.push(l.value);
    const failed = launched.find((l) => l.status === 'rejected');
    if (failed) throw failed.reason;
  } else {
    logger.info({ brokers }, 'Kafka nodes started earlier are not all answering yet; waiting for them');
  }

  const startedMs = Date.now();
  const exited = running.map((s) => exitedReason(s, [kafkaNodePaths(paths, s.node ?? 0).stdoutLog]));
  await waitForKafka({
    brokers,
    ready: () => clusterAnswers(brokers),
    logger,
    timeoutMs: readyTimeoutMs,
    failure: async () => {
      for (const reason of exited) {
        const r = await reason();
        if (r) return r;
      }
      return undefined;
    },
  });
  logger.info(
    { readyMs: Date.now() - startedMs, brokers, started: missing.map((n) => n.nodeId) },
    'Kafka cluster ready',
  );
  return missing.length > 0 ? 'started' : 'reused';
}
