// The parent's side of the mail benchmark's children: starting them, their CPU time, SQL
// statements (over IPC) and log bytes beside the infrastructure's and the machine's (/proc), and
// the tally of what the smart host reports during one measurement.
import type { ChildProcess } from 'node:child_process';
import { sleep } from '@lattice/core';
import { controlOf, forkBenchChild, nextMessage } from '../support/child-messages.ts';
import { infraCpu, machineCpu } from '../support/machine-cpu.ts';
import type { LogFiles } from '../support/platform-log.ts';
import type { Received, ServerArgs, ServerMessage } from './bench-server.ts';
import type { Cpu } from './report.ts';

export interface Server {
  child: ChildProcess;
  url: string;
  /** The child's CPU time so far (user + system, µs) and the SQL statements it has run. */
  stats(): Promise<{ cpuUs: number; statements: number }>;
  stop(): Promise<void>;
}

export async function startServer(args: ServerArgs, profileDir: string | undefined): Promise<Server> {
  const child = forkBenchChild(new URL('./bench-server.ts', import.meta.url), args, profileDir);
  const label = `bench ${args.role}`;
  const ready = await nextMessage<ServerMessage, 'ready'>(child, 'ready', label);
  return {
    child,
    url: ready.url,
    async stats() {
      const answer = nextMessage<ServerMessage, 'stats'>(child, 'stats', label);
      child.send({ type: 'stats' });
      const { cpuUs, statements } = await answer;
      return { cpuUs, statements };
    },
    stop: controlOf(child, label).stop,
  };
}

export interface Servers {
  management: Server;
  actors: Server;
  smartHost: Server;
  /** The log files of management and the actors (named so). */
  logs: LogFiles;
}

export type CpuReading = Awaited<ReturnType<typeof cpuNow>>;

/** A reading of every process's CPU time; the platform's log files start empty from here. */
export async function cpuNow(s: Servers) {
  const [management, actors, smartHost] = await Promise.all([
    s.management.stats(),
    s.actors.stats(),
    s.smartHost.stats(),
  ]);
  s.logs.take('management');
  s.logs.take('actors');
  const own = process.cpuUsage();
  return {
    management,
    actors,
    smartHost,
    generator: own.user + own.system,
    infra: infraCpu(),
    machine: machineCpu(),
  };
}

/** CPU, statements and log bytes per message since `before`, over `n` messages. */
export async function cpuSince(s: Servers, before: CpuReading, n: number): Promise<Cpu> {
  const logBytes = { management: s.logs.take('management') / n, actors: s.logs.take('actors') / n };
  const after = await cpuNow(s);
  const busy = after.machine.busyUs - before.machine.busyUs;
  const total = after.machine.totalUs - before.machine.totalUs;
  const cpu: Cpu = {
    management: (after.management.cpuUs - before.management.cpuUs) / n,
    actors: (after.actors.cpuUs - before.actors.cpuUs) / n,
    smartHost: (after.smartHost.cpuUs - before.smartHost.cpuUs) / n,
    generator: (after.generator - before.generator) / n,
    postgres: (after.infra.postgres - before.infra.postgres) / n,
    kafka: (after.infra.kafka - before.infra.kafka) / n,
    redis: (after.infra.redis - before.infra.redis) / n,
    machine: busy / n,
    machineBusy: total > 0 ? busy / total : Number.NaN,
    other: 0,
    statements: {
      management: (after.management.statements - before.management.statements) / n,
      actors: (after.actors.statements - before.actors.statements) / n,
    },
    logBytes,
  };
  cpu.other =
    cpu.machine -
    (cpu.management + cpu.actors + cpu.smartHost + cpu.generator + cpu.postgres + cpu.kafka + cpu.redis);
  return cpu;
}

/** What the smart host reported during one measurement: per Message-ID, its count and first time. */
export class Tally {
  readonly byId = new Map<string, { count: number; atMs: number }>();
  readonly times: number[] = [];
  total = 0;
  unsigned = 0;
  add([id, atMs, signed]: Received) {
    this.total++;
    this.times.push(atMs);
    if (!signed) this.unsigned++;
    const key = id ?? '(none)';
    const seen = this.byId.get(key);
    if (seen) seen.count++;
    else this.byId.set(key, { count: 1, atMs });
  }
  /** Every expected Message-ID exactly once, nothing else, every message signed. */
  check(label: string, expected: string[]) {
    const problems: string[] = [];
    if (this.total !== expected.length)
      problems.push(`${this.total} messages received for ${expected.length} sent`);
    const missing = expected.filter((id) => !this.byId.has(id)).length;
    if (missing) problems.push(`${missing} never received`);
    const repeated = expected.filter((id) => (this.byId.get(id)?.count ?? 0) > 1).length;
    if (repeated) problems.push(`${repeated} received more than once`);
    const want = new Set(expected);
    const strangers = [...this.byId.keys()].filter((id) => !want.has(id)).length;
    if (strangers) problems.push(`${strangers} Message-IDs that were not sent in this round`);
    if (this.unsigned) problems.push(`${this.unsigned} without a DKIM-Signature`);
    if (problems.length) throw new Error(`${label}: ${problems.join('; ')}`);
  }
}

/** Routes the smart host's reports to the measurement under way; any outside one is an error. */
export class Arrivals {
  private current: Tally | null = null;
  private strays = 0;
  constructor(smartHost: Server) {
    smartHost.child.on('message', (m: ServerMessage) => {
      if (m.type !== 'received') return;
      for (const r of m.messages) {
        if (this.current) this.current.add(r);
        else this.strays++;
      }
    });
  }
  begin(): Tally {
    if (this.strays) throw new Error(`${this.strays} messages reached the smart host between rounds`);
    this.current = new Tally();
    return this.current;
  }
  /** The tally under way (a check after the round's wait), or a failure. */
  tally(): Tally {
    if (!this.current) throw new Error('no measurement under way');
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
