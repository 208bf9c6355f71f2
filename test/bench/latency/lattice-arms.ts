// The two Lattice arms, each `lattice start` run as a user runs it (test/support/lattice-process.ts),
// on the benchmark database, topics and Redis keys of its own, with the realtime publish quota and
// the per-IP limit raised out of the way (docs/realtime-http.md "Publish quota", docs/public-edge.md
// "Per-IP limit"):
//   lattice-apart  every role its own process: `lattice start actors` (first: it creates the
//                  topics), then `lattice start management`, `lattice start edge --env production`
//                  and `lattice start gateway --env production`
//   lattice-one    `lattice start`: every role in one process (both environments' edges and
//                  gateways, the local mailbox), as local development runs it
// Then a fresh product through the management API (lattice-product.ts); the publisher POSTs to
// the management API with the owner's token (BENCH_PUBLISH_DOOR=management, the default) or to
// the production edge with its public key (=edge); the subscribers connect to the production
// gateway.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/lattice-process.ts';
import type { Arm, ArmContext, ArmName, ServerProcess } from './arm.ts';
import { deleteKafkaByPrefix, deleteRedisKeysByPrefix } from './cleanup.ts';
import { startLattice, stopLattice } from './lattice-process.ts';
import { latticeProduct, mintTokens } from './lattice-product.ts';

/** The publish quota and per-IP limit out of the way: the benchmark measures the path, not the limits. */
const LIMITS_RAISED: Record<string, string> = {
  REALTIME_PUBLISH_SUSTAINED_PER_SECOND: '1000000000',
  REALTIME_PUBLISH_WINDOW_MS: '10000',
  REALTIME_PUBLISH_BURST: '0',
  REALTIME_PUBLISH_HARD_LIMIT: '1000000000',
  EDGE_PER_IP_LIMIT: '1000000000',
};

/** The role processes of lattice-apart, in start order, and the line each prints once it serves. */
const ROLES_APART: Array<{ name: string; args: string[]; ready: string }> = [
  { name: 'actors', args: ['actors'], ready: 'actors-metrics role running' },
  { name: 'management', args: ['management'], ready: 'management role running' },
  { name: 'edge', args: ['edge', '--env', 'production'], ready: 'edge-production-metrics role running' },
  {
    name: 'gateway',
    args: ['gateway', '--env', 'production'],
    ready: 'gateway-production-metrics role running',
  },
];

interface Ports {
  managementUrl: string;
  edgeUrl: string;
  gatewayUrl: string;
  env: Record<string, string>;
}

/** Every port any role of the arm listens on, given to every process (each binds its own). */
async function ports(): Promise<Ports> {
  const port = async () => String(await freePort());
  const management = await port();
  const edge = await port();
  const gateway = await port();
  const sink = await port();
  return {
    managementUrl: `http://127.0.0.1:${management}`,
    edgeUrl: `http://127.0.0.1:${edge}`,
    gatewayUrl: `ws://127.0.0.1:${gateway}`,
    env: {
      MANAGEMENT_PORT: management,
      PUBLIC_URL: `http://127.0.0.1:${edge}`,
      PUBLIC_DEV_URL: `http://127.0.0.1:${await port()}`,
      GATEWAY_URL: `ws://127.0.0.1:${gateway}`,
      GATEWAY_DEV_URL: `ws://127.0.0.1:${await port()}`,
      EDGE_METRICS_PORT: await port(),
      GATEWAY_METRICS_PORT: await port(),
      ACTORS_PORT: await port(),
      INBOUND_SMTP_PORT: await port(),
      SMTP_SINK_PORT: sink,
      SMTP_URL: `smtp://127.0.0.1:${sink}`,
    },
  };
}

export async function startLatticeArm(ctx: ArmContext, name: 'lattice-apart' | 'lattice-one'): Promise<Arm> {
  const topicPrefix = `bench-latency-${ctx.runId}-${name}.`;
  const redisPrefix = `lattice-bench:latency-${ctx.runId}-${name}:`;
  const dataDir = mkdtempSync(join(tmpdir(), `bench-latency-${name}-`));
  const p = await ports();
  const env: Record<string, string> = {
    DATABASE_URL: ctx.databaseUrl,
    REDIS_URL: ctx.config.redisUrl,
    REDIS_KEY_PREFIX: redisPrefix,
    KAFKA_BROKERS: ctx.config.kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: topicPrefix,
    KAFKA_PARTITIONS: String(ctx.partitions),
    LATTICE_SECRET_KEYS: ctx.secretKeys,
    LATTICE_DATA_DIR: dataDir,
    // A new key reaches the edge within a second even without its change notification.
    PUBLIC_KEY_SNAPSHOT_REFRESH_MS: '1000',
    // The production level (info: a line per request on the edge and the management API), unless
    // BENCH_LOG_LEVEL names another, which the report then states.
    LOG_LEVEL: ctx.logLevel,
    MANAGEMENT_CHECK_ANSWERS: 'false',
    ...LIMITS_RAISED,
    ...p.env,
    ...(ctx.cpuProfileDir
      ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${join(ctx.cpuProfileDir, name)}` }
      : {}),
  };
  const running: Array<{ process: ServerProcess; child: ChildProcess }> = [];
  const cleanup = async () => {
    for (const r of [...running].reverse()) await stopLattice(r.child);
    running.length = 0;
    await deleteKafkaByPrefix(ctx.config.kafkaBrokers, topicPrefix).catch((err: unknown) =>
      ctx.log(`${name}: topics not deleted: ${String(err)}`),
    );
    await deleteRedisKeysByPrefix(ctx.config.redisUrl, redisPrefix).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const start = async (role: string, args: string[], ready: string) => {
      const child = await startLattice(args, env, ready);
      running.push({ process: { name: role, pid: child.pid! }, child });
    };
    if (name === 'lattice-one') {
      await start('lattice', [], 'Ctrl-C stops Lattice.');
    } else {
      const [first, ...rest] = ROLES_APART;
      await start(first!.name, first!.args, first!.ready);
      // All settled before a failure is thrown, so the cleanup finds every process that started.
      const started = await Promise.allSettled(rest.map((r) => start(r.name, r.args, r.ready)));
      const failed = started.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
    const product = await latticeProduct(
      ctx.databaseUrl,
      `bench-latency-${ctx.runId}-${name}`,
      p.managementUrl,
      p.edgeUrl,
    );
    return {
      name: name as ArmName,
      ...(ctx.publishDoor === 'edge'
        ? {
            publishUrl: `${p.edgeUrl}/${product.productId}/realtime/messages`,
            headers: { authorization: `Bearer ${product.publicKey}`, 'content-type': 'application/json' },
            bodyFields: {},
          }
        : {
            publishUrl: `${p.managementUrl}/realtime/messages`,
            headers: { authorization: `Bearer ${product.ownerToken}`, 'content-type': 'application/json' },
            bodyFields: { environment: 'production' },
          }),
      wsUrl: p.gatewayUrl,
      metricsUrls:
        name === 'lattice-one'
          ? [`${p.managementUrl}/metrics`]
          : [
              `${p.managementUrl}/metrics`,
              `http://127.0.0.1:${p.env.EDGE_METRICS_PORT}/metrics`,
              `http://127.0.0.1:${p.env.GATEWAY_METRICS_PORT}/metrics`,
              `http://127.0.0.1:${p.env.ACTORS_PORT}/metrics`,
            ],
      processes: ROLES_APART.map((r) => running.find((x) => x.process.name === r.name)?.process)
        .concat(running.find((x) => x.process.name === 'lattice')?.process)
        .filter((x): x is ServerProcess => x !== undefined),
      tokens: (channels) => mintTokens(p.edgeUrl, product, channels),
      stop: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
