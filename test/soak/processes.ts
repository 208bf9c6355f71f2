// The soak's platform as it is deployed: every role its own `lattice start ROLE` process (two or
// more actor hosts, gateways and edges, one management API) over the local Kafka and PostgreSQL
// and a Redis server of the soak's own, so that the chaos can SIGKILL or SIGTERM any of them
// and start it again on the same ports, as a supervisor (systemd, Kubernetes) would.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { sleep } from '@lattice/core';
import { freePort, startPlatform } from '../support/lattice-process.ts';

export type RoleKind = 'management' | 'edge' | 'gateway' | 'actors';

export interface SoakProcess {
  /** `actors-1`, `gateway-2`, `redis`, … */
  name: string;
  kind: RoleKind | 'redis';
  /** Where clients reach it: the management or edge base URL, the gateway's ws URL, redis://. */
  url: string;
  /** Where its /metrics and /healthz answer (empty for Redis). */
  metricsUrl: string;
  running(): boolean;
  start(): Promise<void>;
  /** Ends it with `signal` and resolves once it has exited. */
  stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** The last of what it wrote (for a failure's report). */
  output(): string;
}

const OUTPUT_KEPT = 64 * 1024;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A Redis server of the soak's own: no persistence, so a restart loses every key, as a failover to an empty replica would. */
export async function redisServer(): Promise<SoakProcess> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  let out = '';
  const pong = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.setTimeout(500, () => socket.destroy());
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (d) => {
        resolve(d.toString().startsWith('+PONG'));
        socket.destroy();
      });
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(false));
    });
  return {
    name: 'redis',
    kind: 'redis',
    url: `redis://127.0.0.1:${port}`,
    metricsUrl: '',
    running: () => child !== null && child.exitCode === null && child.signalCode === null,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      for (const s of [child.stdout!, child.stderr!])
        s.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-OUTPUT_KEPT)));
      const deadline = Date.now() + 10_000;
      while (!(await pong())) {
        if (Date.now() > deadline) throw new Error(`redis-server did not answer on ${port}:\n${out}`);
        await sleep(50);
      }
    },
    async stop(signal) {
      if (!child) return;
      const done = exited(child);
      child.kill(signal);
      await done;
    },
    output: () => out,
  };
}

export interface RoleProcessArgs {
  kind: RoleKind;
  /** 1, 2, … among the processes of its kind. */
  index: number;
  /** The settings every role shares (database, Kafka, Redis, keys, limits). */
  env: () => Record<string, string>;
}

/** A role's `lattice start` process, on ports chosen once and kept across restarts. */
export async function roleProcess({ kind, index, env }: RoleProcessArgs): Promise<SoakProcess> {
  const port = await freePort();
  const metricsPort = kind === 'management' ? port : await freePort();
  const own: Record<string, string> = {
    management: { MANAGEMENT_PORT: String(port) },
    edge: { PUBLIC_URL: `http://127.0.0.1:${port}`, EDGE_METRICS_PORT: String(metricsPort) },
    gateway: { GATEWAY_URL: `ws://127.0.0.1:${port}`, GATEWAY_METRICS_PORT: String(metricsPort) },
    actors: { ACTORS_PORT: String(metricsPort) },
  }[kind];
  const args = kind === 'edge' || kind === 'gateway' ? [kind, '--env', 'production'] : [kind];
  // The last line a role run alone prints once it serves (its metrics server comes last).
  const ready =
    kind === 'management'
      ? 'management role running'
      : kind === 'actors'
        ? 'actors-metrics role running'
        : `${kind}-production-metrics role running`;
  let child: ChildProcess | null = null;
  let output = () => '';
  return {
    name: `${kind}-${index}`,
    kind,
    url: kind === 'gateway' ? `ws://127.0.0.1:${port}` : kind === 'actors' ? '' : `http://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    running: () => child !== null && child.exitCode === null && child.signalCode === null,
    async start() {
      const started = await startPlatform({ ...env(), ...own }, args, ready);
      child = started.child;
      output = () => started.output().slice(-OUTPUT_KEPT);
    },
    async stop(signal) {
      if (!child) return;
      const done = exited(child);
      child.kill(signal);
      await done;
    },
    output: () => output(),
  };
}
