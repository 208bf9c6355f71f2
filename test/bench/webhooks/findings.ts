// The "what bounds it" paragraph of the webhook benchmark's report: figures of this run where the
// run measures them; the profiles and the probes beside the benchmark are of the investigation
// of 2026-11-24 (named as such), which a run does not repeat.
import type { BenchResult, Summary } from './report.ts';
import { fixed, TARGET_RATIO } from './report.ts';

export function findings(r: BenchResult, platform: Summary, bare: Summary): string[] {
  const l = r.latency;
  const ratio = platform.perSecond / bare.perSecond;
  const behind = l.phases.filter((p) => p.deliveredRate < 0.98 * p.achievedRate);
  const disturbed = l.phases.filter((p) => p.other > 0.25 * l.cpu.machine);
  const disturbedRounds = r.rounds.filter((x) => x.cpu.other > 0.15 * x.cpu.machine);
  return [
    `- Throughput: the platform rounds keep the machine ${fixed(100 * platform.busy)}% busy, so they are bound by what the whole`,
    `  path costs per delivery: ${fixed(platform.machine)} µs of the two cores' time (actors ${fixed(platform.actors)}, PostgreSQL ${fixed(platform.postgres)}, Kafka`,
    `  ${fixed(platform.kafka)}, receiver ${fixed(platform.receiver)}), against ${fixed(bare.machine)} µs for the bare loop, which is bound by its one`,
    `  process instead: ${fixed(bare.generator)} µs of the load generator per request, ${fixed((bare.generator * bare.perSecond) / 1e6, 2)} of a core at its rate (the machine`,
    `  ${fixed(100 * bare.busy)}% busy). The ${TARGET_RATIO} goal needs the platform ${fixed(TARGET_RATIO / ratio, 1)}× faster, which on two cores means its CPU per`,
    '  delivery cut by about that much.',
    ...(disturbedRounds.length
      ? [
          `  Other work on the machine took a share of ${disturbedRounds.map((x) => `${x.label} (other ${fixed(x.cpu.other)} µs per delivery)`).join(', ')},`,
          '  lowering their figures.',
        ]
      : []),
    '- Where the actors’ CPU goes (V8 profile of 2026-11-24 16:20, BENCH_PROFILE_DIR, busy time of a',
    '  one-round run): the HTTPS client 27% (the same work the bare loop does: TLS writes, HTTP parsing),',
    '  the PostgreSQL client 22%, kafkajs 16% (the fan-out’s and the endpoint actors’ consumers, the wake',
    '  records), the webhook code itself (loops, signing, the address check) 12%, garbage collection 2%.',
    '- What this benchmark changed in the delivery path (each measured with a one-round run on this',
    '  machine): the agent’s trust store given as one `secureContext` instead of a `ca` list, which',
    '  Node folded into every request’s pool key (an 879 KB string per request; 0.147 → 0.169); the',
    '  endpoint loops reading 32 pending deliveries at a time, and the outcomes of all loops written',
    '  by group commit (one statement and one commit for the outcomes that arrive while the previous',
    '  write is in flight, each still fenced on its attempt count), which also answers each endpoint’s',
    '  current state for its next attempt; one wake record per endpoint instead of per delivery',
    '  (→ 0.25); no foreign key, second unique index or due index on the deliveries (fewer writes per',
    `  row). SQL statements per delivery fell from 2.19 to ${fixed(platform.statements, 2)}.`,
    `- What bounds it now: PostgreSQL (${fixed(platform.postgres)} µs per delivery here; between 550 and 920 in one-round runs`,
    '  of the same code on this machine within 10 minutes, the one figure that moved) for two row',
    '  writes per delivery: the fan-out’s insert of the pending row (three indexes) and the outcome’s',
    '  update (not a HOT update: the status leaves the pending index). Both are what makes a due time',
    '  and an attempt count durable per delivery. Reaching 0.5 needs about half the machine’s time per',
    '  delivery; the design that would get there (not made here) keeps one row per event and a',
    '  per-endpoint position instead of a row per delivery, writing per-delivery rows only for',
    '  deliveries that fail, as Kafka consumers keep offsets rather than per-message acknowledgements.',
    `- Event → first attempt at ${l.rate} events a second to ${l.endpoints === 1 ? 'one endpoint' : `${l.endpoints} endpoints`}: p50 ${fixed(l.p50Ms, 1)} ms (publish → recorded ${fixed(l.recordedP50Ms, 1)} ms, recorded →`,
    `  first request ${fixed(l.attemptedP50Ms, 1)} ms), p99 ${fixed(l.p99Ms, 1)} ms. At this rate each event pays alone for what a full round shares:`,
    `  the actors spend ${fixed(l.cpu.actors)} µs per delivery (${fixed(platform.actors)} at full load) and Kafka ${fixed(l.cpu.kafka)} µs (${fixed(platform.kafka)}), for the fan-out’s`,
    '  fetch, two statements and offset commit, the wake record produced with acks=all, the endpoint',
    '  consumer’s fetch and commit and the email-state consumer’s (in a profile of this phase, 2026-11-24,',
    '  kafkajs and the PostgreSQL client took about a third of the actors’ busy time each, the socket',
    `  writes to the broker and to PostgreSQL the largest part): the machine is ${fixed(100 * l.cpu.machineBusy)}% busy at ${l.rate} events`,
    '  a second. The deliveries of one endpoint go one at a time (decisions.md), each the address',
    '  check, the POST and the outcome’s commit in sequence, so whenever the cores are',
    '  taken by something else the loop falls behind and every later delivery waits: the tail follows what',
    '  else the machine does. In single 10 to 15 s phases on 2026-11-24: p99 64 ms on a quiet machine (69%',
    '  busy, p50 7.8 ms), 386 ms and more while another session’s tests ran (the "other" column: half a',
    '  core), 15.7 ms at 60 events a second.',
    ...(behind.length
      ? [
          `  Here the loop fell behind in ${behind.map((p) => `${p.label} (${fixed(p.deliveredRate, 1)} delivered a second)`).join(', ')}.`,
        ]
      : []),
    ...(disturbed.length
      ? [`  Other work took a large share of the machine in ${disturbed.map((p) => p.label).join(', ')}.`]
      : []),
    '- Left as they are: the address check resolves the endpoint’s name at every attempt (decisions.md:',
    '  the checked address is the one connected to), 3% of the actors’ time with `localhost` from',
    '  /etc/hosts; a TLS handshake per pooled connection after 4 s idle (the receiver counts them; a',
    '  handful per round).',
  ];
}
