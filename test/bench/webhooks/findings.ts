// The "what bounds it" paragraph of the webhook benchmark's report: every figure in it is this
// run's; what a run does not measure (profiles, earlier runs) is left out.
import type { BenchResult, Summary } from './report.ts';
import { fixed, latencyVerdict, TARGET_P99_MS, TARGET_RATIO } from './report.ts';

export function findings(r: BenchResult, platform: Summary, bare: Summary): string[] {
  const l = r.latency;
  const ratio = platform.perSecond / bare.perSecond;
  const behind = l.phases.filter((p) => p.deliveredRate < 0.98 * p.achievedRate);
  const disturbed = l.phases.filter((p) => p.other > 0.25 * l.cpu.machine);
  const disturbedRounds = r.rounds.filter((x) => x.cpu.other > 0.15 * x.cpu.machine);
  return [
    `- Throughput: the platform rounds keep the machine ${fixed(100 * platform.busy)}% busy, so they are bound by what the whole`,
    `  path costs per delivery: ${fixed(platform.machine)} µs of the two cores' time (actors ${fixed(platform.actors)}, PostgreSQL ${fixed(platform.postgres)}, Kafka`,
    `  ${fixed(platform.kafka)}, receiver ${fixed(platform.receiver)}), against ${fixed(bare.machine)} µs for the bare loop, whose own process spent`,
    `  ${fixed(bare.generator)} µs per request, ${fixed((bare.generator * bare.perSecond) / 1e6, 2)} of a core at its rate (the machine ${fixed(100 * bare.busy)}% busy).`,
    `  The ${TARGET_RATIO} goal needs the platform ${fixed(TARGET_RATIO / ratio, 2)} times as fast as in this run, which on two cores means its`,
    '  CPU per delivery cut by about that much.',
    ...(disturbedRounds.length
      ? [
          `  Other work on the machine took a share of ${disturbedRounds.map((x) => `${x.label} (other ${fixed(x.cpu.other)} µs per delivery)`).join(', ')},`,
          '  lowering their figures.',
        ]
      : []),
    `- Per delivery the actors ran ${fixed(platform.statements, 2)} SQL statements, ${fixed(platform.webhookStatements, 2)} of them on the webhook tables: the`,
    '  fan-out’s inserts of the pending rows and the outcomes’ group-committed updates, which make a due',
    '  time and an attempt count durable per delivery.',
    `- Event → first attempt at ${l.rate} events a second to ${l.endpoints === 1 ? 'one endpoint' : `${l.endpoints} endpoints`}: p50 ${fixed(l.p50Ms, 1)} ms (publish → recorded ${fixed(l.recordedP50Ms, 1)} ms, recorded →`,
    `  first request ${fixed(l.attemptedP50Ms, 1)} ms), p99 ${fixed(l.p99Ms, 1)} ms (goal < ${TARGET_P99_MS} ms: ${latencyVerdict(l)}). At this rate each event pays alone for what a full round`,
    `  shares: the actors spend ${fixed(l.cpu.actors)} µs per delivery (${fixed(platform.actors)} at full load), Kafka ${fixed(l.cpu.kafka)} µs (${fixed(platform.kafka)}), PostgreSQL`,
    `  ${fixed(l.cpu.postgres)} µs (${fixed(platform.postgres)}); ${fixed(l.cpu.statements, 2)} statements per delivery in the actors; the machine is ${fixed(100 * l.cpu.machineBusy)}% busy.`,
    '  The deliveries of one endpoint go one at a time, in order (docs/webhooks.md), each the address check,',
    '  the POST and the outcome’s commit in sequence, so whenever the cores are taken the loop falls behind and',
    `  every later delivery waits: the tail follows what else the machine does (per phase, p99 from ${fixed(Math.min(...l.phases.map((p) => p.p99Ms)), 1)} to ${fixed(Math.max(...l.phases.map((p) => p.p99Ms)), 1)} ms).`,
    ...(behind.length
      ? [
          `  Here the loop fell behind in ${behind.map((p) => `${p.label} (${fixed(p.deliveredRate, 1)} delivered a second)`).join(', ')}.`,
        ]
      : []),
    ...(disturbed.length
      ? [
          `  Other work took a large share of the machine in ${disturbed.map((p) => `${p.label} (other ${fixed(p.other)} µs per delivery, ${fixed((p.other * l.rate * l.endpoints) / 1e6, 2)} of a core)`).join(', ')}.`,
        ]
      : []),
    '- The address check resolves the endpoint’s name at every attempt, and the checked address is the one',
    `  connected to (docs/webhooks.md); a pooled connection idle for 4 s costs a new TLS handshake (the receiver made ${l.cpu.handshakes}`,
    '  in the latency phases).',
  ];
}
