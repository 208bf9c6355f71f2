// One measurement of the publish benchmark, the same for both arms: `messages` sends with
// `concurrency` in flight, then a wait until every message is received; one progress line a
// second. The arm adds its own CPU and log figures.
import { performance } from 'node:perf_hooks';
import { sleep } from '@lattice/core';
import { percentile, pool } from '../support/http-load.ts';
import type { Round } from './report.ts';

export type Measured = Pick<
  Round,
  'messages' | 'elapsedMs' | 'sentPerSecond' | 'perSecond' | 'p50Ms' | 'p99Ms' | 'generatorCpuUs'
>;

export interface MeasureOptions {
  label: string;
  messages: number;
  concurrency: number;
  send: (i: number) => Promise<void>;
  received: () => number;
  /** Latency of message i at index i (written by the arm's receiver). */
  latencies: Float64Array;
  log: (line: string) => void;
}

export async function measure(o: MeasureOptions): Promise<Measured> {
  const n = o.messages;
  const cpuBefore = process.cpuUsage();
  const startedMs = performance.now();
  let sentMs = 0;
  let lastCount = 0;
  const ticker = setInterval(() => {
    const count = o.received();
    o.log(
      `  ${o.label.padEnd(12)} ${String(count).padStart(6)}/${n} received  ${String(count - lastCount).padStart(6)} msg/s`,
    );
    lastCount = count;
  }, 1000);
  try {
    await pool(n, o.concurrency, o.send);
    sentMs = performance.now() - startedMs;
    const deadline = Date.now() + 120_000;
    while (o.received() < n) {
      if (Date.now() > deadline) throw new Error(`${o.label}: only ${o.received()} of ${n} received`);
      await sleep(2);
    }
  } finally {
    clearInterval(ticker);
  }
  const elapsedMs = performance.now() - startedMs;
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = Float64Array.from(o.latencies.subarray(0, n)).sort();
  return {
    messages: n,
    elapsedMs,
    sentPerSecond: n / (sentMs / 1000),
    perSecond: n / (elapsedMs / 1000),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    generatorCpuUs: (cpu.user + cpu.system) / n,
  };
}
