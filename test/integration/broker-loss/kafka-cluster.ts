// A three-broker Kafka cluster of a test's own (`lattice infra up --brokers 3` as a library
// call): KRaft nodes on free ports with a throwaway cache folder, so it runs beside the suite's
// single broker; the jars are the suite's, linked rather than fetched again. A node can be
// SIGKILLed and started again on its own data, as `lattice infra up` does after a loss.
import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LatticeConfig, type Logger, sleep } from '@lattice/core';
import {
  DEFAULT_KAFKA_CLUSTER_JAVA_OPTIONS,
  ensureInfra,
  ensureKafkaLibs,
  infraPaths,
  infraStatus,
  stopInfra,
} from '@lattice/infra';
import { freePort } from '../../support/lattice-process.ts';

export interface TestKafkaCluster {
  /** KAFKA_BROKERS of the cluster: its three client addresses. */
  brokers: string[];
  /** The running pid of node 1, 2 or 3 (null when it is down). */
  pidOf(node: number): Promise<number | null>;
  /** SIGKILLs the node (no controlled shutdown); resolves once its process is gone. */
  kill(node: number): Promise<void>;
  /** Starts the nodes that are down again, on their own data; resolves once all three answer. */
  restore(): Promise<void>;
  stop(): Promise<void>;
}

/** Distinct free ports: three brokers' and three controllers'. */
async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export async function startTestKafkaCluster(
  config: LatticeConfig,
  logger: Logger,
): Promise<TestKafkaCluster> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'lattice-brokers-'));
  await chmod(cacheDir, 0o755);
  // The suite's jars (fetched once into infra/.cache by Maven), shared by link.
  const libsDir = infraPaths().kafka.libsDir;
  await ensureKafkaLibs({ libsDir, logger });
  await mkdir(infraPaths(cacheDir).kafka.dir, { recursive: true });
  await symlink(libsDir, infraPaths(cacheDir).kafka.libsDir);

  const ports = await freePorts(6);
  const brokers = ports.slice(0, 3).map((p) => `127.0.0.1:${p}`);
  const clusterConfig: LatticeConfig = { ...config, kafkaBrokers: brokers };
  const up = () =>
    ensureInfra({
      config: clusterConfig,
      logger,
      cacheDir,
      kafkaBrokerCount: 3,
      kafkaControllerPorts: ports.slice(3),
      kafkaJavaOptions: DEFAULT_KAFKA_CLUSTER_JAVA_OPTIONS,
    });
  const stop = async () => {
    await stopInfra({ logger, cacheDir, only: ['kafka'] }).catch(() => undefined);
    await rm(cacheDir, { recursive: true, force: true });
  };
  try {
    await up();
  } catch (err) {
    await stop();
    throw err;
  }

  const pidOf = async (node: number) =>
    (await infraStatus(clusterConfig, { cacheDir })).find((s) => s.name === 'kafka' && s.node === node)
      ?.managedPid ?? null;
  return {
    brokers,
    pidOf,
    async kill(node) {
      const pid = await pidOf(node);
      if (pid === null) throw new Error(`Kafka node ${node} is not running`);
      process.kill(pid, 'SIGKILL');
      // This process started it, so it reaps it: the pid is gone once the kill took effect.
      const gone = () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      };
      for (let i = 0; i < 100 && !gone(); i++) await sleep(50);
    },
    async restore() {
      await up();
    },
    stop,
  };
}
