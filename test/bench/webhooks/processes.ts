// The parent's side of the webhook benchmark's children: starting them, their CPU time, SQL
// statements (over IPC) and log bytes beside the infrastructure's and the machine's (/proc), and
// the tally of what the receiver reports during one measurement.
import { type StatsServer, startStatsServer } from '../support/child-messages.ts';
import { generatorInfraMachineCpu, generatorInfraMachineCpuPer } from '../support/machine-cpu.ts';
import { MeasuredArrivals } from '../support/measured-arrivals.ts';
import type { LogFiles } from '../support/platform-log.ts';
import type { Arrival, ServerArgs, ServerMessage } from './bench-server.ts';
import type { Cpu } from './report.ts';

/**
 * A child: its CPU time so far (user + system, µs), the SQL statements it has run (all, and on
 * the webhook tables) and the TLS handshakes it has made, as `stats`.
 */
export type Server = StatsServer<{
  cpuUs: number;
  statements: number;
  webhookStatements: number;
  handshakes: number;
}>;

export function startServer(
  args: ServerArgs,
  profileDir: string | undefined,
  env: Record<string, string>,
): Promise<Server> {
  return startStatsServer(new URL('./bench-server.ts', import.meta.url), args, profileDir, env);
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
  return { actors, receiver, ...generatorInfraMachineCpu() };
}

/** CPU, statements and log bytes per delivery since `before`, over `n` deliveries. */
export async function cpuSince(s: Servers, before: CpuReading, n: number): Promise<Cpu> {
  const logBytes = s.logs.take('actors') / n;
  const after = await cpuNow(s);
  const cpu: Cpu = {
    actors: (after.actors.cpuUs - before.actors.cpuUs) / n,
    receiver: (after.receiver.cpuUs - before.receiver.cpuUs) / n,
    ...generatorInfraMachineCpuPer(before, after, n),
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
export class Arrivals extends MeasuredArrivals<ServerMessage, Arrival, Tally> {
  constructor(receiver: Server) {
    super(
      receiver.child,
      (m) => (m.type === 'received' ? m.requests : []),
      () => new Tally(),
      (n) => `${n} requests reached the receiver between measurements`,
    );
  }
}
