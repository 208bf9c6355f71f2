// What the benchmarks read of the machine around a measurement (Linux /proc): its busy and total
// CPU time, one process's and the infrastructure's processes' CPU time (with the load
// generator's, per unit of work between two readings), and a wait for a quiet machine before a
// round (another session's tests take the same cores).
import { readdirSync, readFileSync } from 'node:fs';
import { sleep } from '@lattice/core';

const USER_HZ_US = 1e6 / 100;

/** Busy and total CPU time of the whole machine so far (/proc/stat), in µs. */
export function machineCpu(): { busyUs: number; totalUs: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busyUs: (total - idle) * USER_HZ_US, totalUs: total * USER_HZ_US };
}

/**
 * CPU time (user + system) so far of process `pid` (/proc/<pid>/stat), in µs: a server process
 * read from outside, the same way for every arm of a benchmark.
 */
export function processCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces: count fields from after its closing parenthesis.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * USER_HZ_US;
}

/**
 * CPU time so far of the infrastructure's processes by name (/proc/<pid>/stat), in µs:
 * PostgreSQL (every `postgres` process, with the time of backends that have exited, which their
 * parent's cutime/cstime holds), Kafka (`java`), Redis (`redis-server`).
 */
export function infraCpu(): { postgres: number; kafka: number; redis: number } {
  const sums = { postgres: 0, kafka: 0, redis: 0 };
  const group: Record<string, keyof typeof sums> = {
    postgres: 'postgres',
    java: 'kafka',
    'redis-server': 'redis',
  };
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const which = group[comm];
    if (!which) continue;
    // Fields after the comm: state is field 3; utime, stime, cutime, cstime are 14-17.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + (which === 'postgres' ? Number(f[13]) + Number(f[14]) : 0);
    sums[which] += ticks * USER_HZ_US;
  }
  return sums;
}

/**
 * What a benchmark reads around a measurement beside its own servers: this process's CPU time
 * (the load generator's), the infrastructure's and the machine's, in µs.
 */
export function generatorInfraMachineCpu() {
  const own = process.cpuUsage();
  return { generator: own.user + own.system, infra: infraCpu(), machine: machineCpu() };
}

export type GeneratorInfraMachineReading = ReturnType<typeof generatorInfraMachineCpu>;

/**
 * The load generator's and the infrastructure's CPU time per unit of work (µs per message,
 * delivery…), the machine's busy time per unit, and the share of the machine's CPU time that was
 * busy (0..1).
 */
export interface GeneratorInfraMachineCpu {
  generator: number;
  postgres: number;
  kafka: number;
  redis: number;
  machine: number;
  machineBusy: number;
}

/** Those figures between two readings, over `n` units of work. */
export function generatorInfraMachineCpuPer(
  before: GeneratorInfraMachineReading,
  after: GeneratorInfraMachineReading,
  n: number,
): GeneratorInfraMachineCpu {
  const busy = after.machine.busyUs - before.machine.busyUs;
  const total = after.machine.totalUs - before.machine.totalUs;
  return {
    generator: (after.generator - before.generator) / n,
    postgres: (after.infra.postgres - before.infra.postgres) / n,
    kafka: (after.infra.kafka - before.infra.kafka) / n,
    redis: (after.infra.redis - before.infra.redis) / n,
    machine: busy / n,
    machineBusy: total > 0 ? busy / total : Number.NaN,
  };
}

/** Each figure's mean over several measurements. */
export function meanGeneratorInfraMachineCpu(cpus: GeneratorInfraMachineCpu[]): GeneratorInfraMachineCpu {
  const mean = (figure: keyof GeneratorInfraMachineCpu) =>
    cpus.reduce((sum, c) => sum + c[figure], 0) / cpus.length;
  return {
    generator: mean('generator'),
    postgres: mean('postgres'),
    kafka: mean('kafka'),
    redis: mean('redis'),
    machine: mean('machine'),
    machineBusy: mean('machineBusy'),
  };
}

/**
 * Waits (60 s at most) until the machine is nearly idle over half a second: other work on the
 * machine (another session's tests, say) would take the round's cores. Returns the wait.
 */
export async function quiet(): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = machineCpu();
    await sleep(500);
    const after = machineCpu();
    const busy = (after.busyUs - before.busyUs) / Math.max(1, after.totalUs - before.totalUs);
    if (busy < 0.15 || Date.now() - started > 60_000) return Date.now() - started;
  }
}
