// The bare-pipeline arm: the parts Lattice is built from, wired by hand and nothing else, in three
// processes as Lattice's roles apart (so each part's CPU is read on its own):
//   http      bare-edge.ts     Node http → kafkajs idempotent producer, group commit, 202
//   consumer  bare-actor.ts    kafkajs eachBatch → one INSERT → PUBLISH per record → commit
//   ws        bare-gateway.ts  Redis SUBSCRIBE → `ws` sockets
// On a throwaway topic (the same partition count as Lattice's) and table, created here and
// dropped when the arm stops, with a consumer group and Redis channels of the run's own.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@lattice/core';
import { createKafka } from '@lattice/kafka';
import pg from 'pg';
import type { Arm, ArmContext, ServerProcess } from './arm.ts';
import { deleteKafkaByPrefix } from './cleanup.ts';
import type { BareChildArgs, BareChildMessage } from './messages.ts';

const PARTS = [
  { name: 'ws', file: './bare-gateway.ts' },
  { name: 'consumer', file: './bare-actor.ts' },
  { name: 'http', file: './bare-edge.ts' },
] as const;

async function createTopic(brokers: string[], topic: string, partitions: number): Promise<void> {
  const logger = createLogger({ name: 'bench-latency-bare', level: 'error' });
  const admin = createKafka({ brokers, clientId: 'bench-latency-bare', logger }).admin();
  await admin.connect();
  try {
    const { brokers: cluster } = await admin.describeCluster();
    await admin.createTopics({
      topics: [{ topic, numPartitions: partitions, replicationFactor: Math.min(3, cluster.length) }],
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }
}

async function sql(databaseUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** The child's `ready` or `failed`, or a failure when it exits first. */
function firstMessage(child: ChildProcess, label: string): Promise<BareChildMessage> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${label} exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (m: BareChildMessage) => {
      child.off('exit', onExit);
      resolve(m);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  const done = exited(child);
  if (child.connected) child.send({ type: 'stop' });
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await done;
  clearTimeout(timer);
}

export async function startBareArm(ctx: ArmContext): Promise<Arm> {
  const prefix = `bench-latency-${ctx.runId}-bare.`;
  const table = `bench_latency_${ctx.runId.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
  const args: BareChildArgs = {
    kafkaBrokers: ctx.config.kafkaBrokers,
    topic: `${prefix}messages`,
    groupId: `${prefix}consumer`,
    databaseUrl: ctx.databaseUrl,
    table,
    redisUrl: ctx.config.redisUrl,
    redisPrefix: `${prefix}channel:`,
    partitionsConcurrency: ctx.barePartitionsConcurrency,
  };
  const children: ChildProcess[] = [];
  const processes: ServerProcess[] = [];
  const urls = new Map<string, string | null>();
  const cleanup = async () => {
    for (const child of [...children].reverse()) await stopChild(child);
    children.length = 0;
    await deleteKafkaByPrefix(ctx.config.kafkaBrokers, prefix).catch((err: unknown) =>
      ctx.log(`bare-pipeline: topic not deleted: ${String(err)}`),
    );
    await sql(ctx.databaseUrl, `DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
  };
  try {
    await createTopic(ctx.config.kafkaBrokers, args.topic, ctx.partitions);
    await sql(
      ctx.databaseUrl,
      `CREATE TABLE ${table} (id bigserial PRIMARY KEY, channel text NOT NULL, data text NOT NULL,
        kafka_partition int NOT NULL, kafka_offset bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const part of PARTS) {
      const child = fork(fileURLToPath(new URL(part.file, import.meta.url)), [JSON.stringify(args)], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      // A stop sent to a child that is gone (a Ctrl-C reached it first) is no error of the run.
      child.on('error', () => undefined);
      children.push(child);
      const first = await firstMessage(child, `bare ${part.name}`);
      if (first.type === 'failed') throw new Error(`bare ${part.name}: ${first.reason}`);
      processes.push({ name: part.name, pid: first.pid });
      urls.set(part.name, first.url);
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  return {
    name: 'bare-pipeline',
    publishUrl: `${urls.get('http')}/messages`,
    headers: { 'content-type': 'application/json' },
    bodyFields: {},
    metricsUrls: [],
    wsUrl: urls.get('ws')!,
    processes,
    tokens: async () => null,
    stop: cleanup,
  };
}
