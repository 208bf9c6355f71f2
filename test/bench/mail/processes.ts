// The parent's side of the mail benchmark's children: starting them, their CPU time, SQL
// statements (over IPC) and log bytes beside the infrastructure's and the machine's (/proc), and
// the tally of what the smart host reports during one measurement.
import { type StatsServer, startStatsServer } from '../support/child-messages.ts';
import { generatorInfraMachineCpu, generatorInfraMachineCpuPer } from '../support/machine-cpu.ts';
import { MeasuredArrivals } from '../support/measured-arrivals.ts';
import type { LogFiles } from '../support/platform-log.ts';
import type { Received, ServerArgs, ServerMessage } from './bench-server.ts';
import type { Cpu } from './report.ts';

/** A child: its CPU time so far (user + system, µs) and the SQL statements it has run, as `stats`. */
export type Server = StatsServer<{ cpuUs: number; statements: number }>;

export function startServer(args: ServerArgs, profileDir: string | undefined): Promise<Server> {
  return startStatsServer(new URL('./bench-server.ts', import.meta.url), args, profileDir);
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
  return { management, actors, smartHost, ...generatorInfraMachineCpu() };
}

/** CPU, statements and log bytes per message since `before`, over `n` messages. */
export async function cpuSince(s: Servers, before: CpuReading, n: number): Promise<Cpu> {
  const logBytes = { management: s.logs.take('management') / n, actors: s.logs.take('actors') / n };
  const after = await cpuNow(s);
  const cpu: Cpu = {
    management: (after.management.cpuUs - before.management.cpuUs) / n,
    actors: (after.actors.cpuUs - before.actors.cpuUs) / n,
    smartHost: (after.smartHost.cpuUs - before.smartHost.cpuUs) / n,
    ...generatorInfraMachineCpuPer(before, after, n),
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
export class Arrivals extends MeasuredArrivals<ServerMessage, Received, Tally> {
  constructor(smartHost: Server) {
    super(
      smartHost.child,
      (m) => (m.type === 'received' ? m.messages : []),
      () => new Tally(),
      (n) => `${n} messages reached the smart host between rounds`,
    );
  }
}
