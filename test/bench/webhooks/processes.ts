// The parent's side of the webhook benchmark's children: starting them, their CPU time, SQL
// statements (over IPC) and log bytes beside the infrastructure's and the machine's (/proc), and
// the tally of what the receiver reports during one measurement.
import type { ChildProcess } from 'node:child_process';
import { sleep } from '@lattice/core';
import { controlOf, forkBenchChild, nextMessage } from '../support/child-messages.ts';
import { infraCpu, machineCpu } from '../support/machine-cpu.ts';
import type { LogFiles } from '../support/platform-log.ts';
import type { Arrival, ServerArgs, ServerMessage } from './bench-server.ts';
import type { Cpu } from './report.ts';

export interface Server {
  child: ChildProcess;
  url: string;
  /** The child's CPU time so far (user + system, µs) and the SQL statements it has run. */
  stats(): Promise<{ cpuUs: number; statements: number; webhookStatements: number; handshakes: number }>;
  stop(): Promise<void>;
}

export async function startServer(
  args: ServerArgs,
  profileDir: string | undefined,
  env: Record<string, string>,
): Promise<Server> {
  const child = forkBenchChild(new URL('./bench-server.ts', import.meta.url), args, profileDir, env);
  const label = `bench ${args.role}`;
  const ready = await nextMessage<ServerMessage, 'ready'>(child, 'ready', label);
  return {
    child,
    url: ready.url,
    async stats() {
      const answer = nextMessage<ServerMessage, 'stats'>(child, 'stats', label);
      child.send({ type: 'stats' });
      const { cpuUs, statements, webhookStatements, handshakes } = await answer;
      return { cpuUs, statements, webhookStatements, handshakes };
    },
    stop: controlOf(child, label).stop,
  };
}

export interface Servers {
  actors: Server;
  receiver: Server;
  /** The actors' log file (named `actors`). */
  logs: LogFiles;
}

export type CpuReading = Awaited<ReturnType<typeof cpuNow>>;

/** A reading of every process's CPU time; the actors' log file starts empty from here. */
export async function cpuNow(s: Servers) {
  const [actors, receiver] = await Promise.all([s.actors.stats(), s.receiver.stats()]);
  s.logs.take('actors');
  const own = process.cpuUsage();
  return { actors, receiver, generator: own.user + own.system, infra: infraCpu(), machine: machineCpu() };
}

/** CPU, statements and log bytes per delivery since `before`, over `n` deliveries. */
export async function cpuSince(s: Servers, before: CpuReading, n: number): Promise<Cpu> {
  const logBytes = s.logs.take('actors') / n;
  const after = await cpuNow(s);
  const busy = after.machine.busyUs - before.machine.busyUs;
  const total = after.machine.totalUs - before.machine.totalUs;
  const cpu: Cpu = {
    actors: (after.actors.cpuUs - before.actors.cpuUs) / n,
    receiver: (after.receiver.cpuUs - before.receiver.cpuUs) / n,
    generator: (after.generator - before.generator) / n,
    postgres: (after.infra.postgres - before.infra.postgres) / n,
    kafka: (after.infra.kafka - before.infra.kafka) / n,
    redis: (after.infra.redis - before.infra.redis) / n,
    machine: busy / n,
    machineBusy: total > 0 ? busy / total : Number.NaN,
    other: 0,
    statements: (after.actors.statements - before.actors.statements) / n,
    webhookStatements: (after.actors.webhookStatements - before.actors.webhookStatements) / n,
    handshakes: after.receiver.handshakes - before.receiver.handshakes,
    logBytes,
  };
  cpu.other =
    cpu.machine - (cpu.actors + cpu.receiver + cpu.generator + cpu.postgres + cpu.kafka + cpu.redis);
  return cpu;
}

/** What the receiver reported during one measurement: per webhook-id, its count, path and first arrival. */
export class Tally {
  readonly byId = new Map<string, { count: number; atMs: number; path: string }>();
  readonly times: number[] = [];
  total = 0;
  add([id, path, atMs]: Arrival) {
    this.total++;
    this.times.push(atMs);
    const seen = this.byId.get(id);
    if (seen) {
      seen.count++;
      seen.atMs = Math.min(seen.atMs, atMs);
    } else this.byId.set(id, { count: 1, atMs, path });
  }
  /** Every expected webhook-id exactly once, at its endpoint's path, and nothing else. */
  check(label: string, expected: ReadonlyMap<string, string>) {
    const problems: string[] = [];
    if (this.total !== expected.size)
      problems.push(`${this.total} requests received for ${expected.size} expected`);
    let missing = 0;
    let repeated = 0;
    let misrouted = 0;
    for (const [id, path] of expected) {
      const seen = this.byId.get(id);
      if (!seen) missing++;
      else if (seen.count > 1) repeated++;
      if (seen && seen.path !== path) misrouted++;
    }
    if (missing) problems.push(`${missing} never received`);
    if (repeated) problems.push(`${repeated} received more than once`);
    if (misrouted) problems.push(`${misrouted} at another endpoint's path`);
    const strangers = [...this.byId.keys()].filter((id) => !expected.has(id)).length;
    if (strangers) problems.push(`${strangers} webhook-ids that were not expected in this measurement`);
    if (problems.length) throw new Error(`${label}: ${problems.join('; ')}`);
  }
  /** Requests received in each second since `startMs`. */
  perSecond(startMs: number): number[] {
    const series: number[] = [];
    for (const t of this.times) {
      const s = Math.max(0, Math.floor((t - startMs) / 1000));
      while (series.length <= s) series.push(0);
      series[s]!++;
    }
    return series;
  }
}

/** Routes the receiver's reports to the measurement under way; any outside one is an error. */
export class Arrivals {
  private current: Tally | null = null;
  private strays = 0;
  constructor(receiver: Server) {
    receiver.child.on('message', (m: ServerMessage) => {
      if (m.type !== 'received') return;
      for (const r of m.requests) {
        if (this.current) this.current.add(r);
        else this.strays++;
      }
    });
  }
  begin(): Tally {
    if (this.strays) throw new Error(`${this.strays} requests reached the receiver between measurements`);
    this.current = new Tally();
    return this.current;
  }
  end(): void {
    this.current = null;
  }
}

export async function waitFor(label: string, done: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${label}: gave up after ${timeoutMs / 1000} s`);
    await sleep(5);
  }
}
