// The "what bounds it" paragraph of the webhook benchmark's report: figures of the run where the
// run measures them; what profiles showed is named with its date, as a run does not repeat it.
import type { BenchResult, Summary } from './report.ts';
import { fixed } from './report.ts';

export function findings(r: BenchResult, platform: Summary, bare: Summary): string[] {
  const l = r.latency;
  return [
    `- The platform rounds keep the machine ${fixed(100 * platform.busy)}% busy: the whole path costs ${fixed(platform.machine)} µs of the two`,
    `  cores' time per delivery, against ${fixed(bare.machine)} µs for the bare loop (${fixed(100 * bare.busy)}% busy).`,
    `- Event → first attempt at ${l.rate} events a second: p50 ${fixed(l.p50Ms, 1)} ms, of which ${fixed(l.publishAckP50Ms, 1)} ms until Kafka acknowledged the event.`,
  ];
}
