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
    '- Where the actors’ CPU goes in the throughput rounds (V8 profile of 2026-11-24, BENCH_PROFILE_DIR, share',
    '  of the process’s busy time without start-up): the PostgreSQL client 44%, most of it the socket writes',
    '  of the statements (31%: on this machine a write that wakes another process is among the dearest',
    '  things a process does, as the mail benchmark found); the HTTPS client 27%; the endpoint loop’s own',
    '  code, signing included, 7%; kafkajs 5%; garbage collection 4%; the address check’s lookup of',
    '  `localhost` 3%.',
    '- A cost in the production code (not changed here, for review): `webhook-request.ts` gives its',
    '  keep-alive `https.Agent` the option `ca: receiverCaCertificates()`, the system store plus',
    '  NODE_EXTRA_CA_CERTS (145 PEM certificates, 220 KB here). Node’s `https.Agent.getName` puts `ca`',
    '  into the pool key, so every request builds a 220 KB key and looks it up several times (`getName`,',
    '  `addRequest`, the free handler, `removeSocket`): 13% of the actors’ busy time in that profile,',
    '  about 0.25 ms per delivery. Measured apart the same day (one client process, 8 keep-alive lanes to',
    '  this receiver): 410 to 495 µs of client CPU per request with that option, 124 to 150 µs without',
    '  it, 132 µs with the same certificates given as `secureContext: tls.createSecureContext({ ca })`',
    '  (a 36-character pool key; a self-signed receiver is still refused with DEPTH_ZERO_SELF_SIGNED_CERT,',
    '  the test CA’s certificate still accepted, with or without an IP host).',
    `- Per delivery the actors ran ${fixed(platform.statements, 2)} SQL statements (${fixed(platform.webhookStatements, 2)} on the webhook tables) and PostgreSQL`,
    `  spent ${fixed(platform.postgres)} µs. The endpoint loop makes two in sequence per delivery: the head read, then the`,
    '  outcome’s fenced UPDATE with its commit; then the next head read. The fan-out adds two per event',
    '  (the product’s endpoints, the insert) and a wake record per delivery on `mail.webhook-deliveries`.',
    '  What would cut it (design changes for review, none made here): the outcome’s statement returning',
    '  the next pending delivery, or a loop reading its next few pending deliveries at once (the loop is',
    '  the endpoint’s only writer, so order holds); outcomes of several endpoints written in one statement',
    '  per turn; the fan-out reading the endpoints once per Kafka batch rather than per email.',
    `- Event → first attempt at ${l.rate} events a second to ${l.endpoints === 1 ? 'one endpoint' : `${l.endpoints} endpoints`}: p50 ${fixed(l.p50Ms, 1)} ms (publish → recorded ${fixed(l.recordedP50Ms, 1)} ms, recorded →`,
    `  first request ${fixed(l.attemptedP50Ms, 1)} ms), p99 ${fixed(l.p99Ms, 1)} ms. At this rate each event pays alone for what a full round shares:`,
    `  the actors spend ${fixed(l.cpu.actors)} µs per delivery (${fixed(platform.actors)} at full load) and Kafka ${fixed(l.cpu.kafka)} µs (${fixed(platform.kafka)}), for the fan-out’s`,
    '  fetch, two statements and offset commit, the wake record produced with acks=all, the endpoint',
    '  consumer’s fetch and commit and the email-state consumer’s (in a profile of this phase, 2026-11-24,',
    '  kafkajs and the PostgreSQL client took about a third of the actors’ busy time each, the socket',
    `  writes to the broker and to PostgreSQL the largest part): the machine is ${fixed(100 * l.cpu.machineBusy)}% busy at ${l.rate} events`,
    '  a second. The deliveries of one endpoint go one at a time (decisions.md), each a head',
    '  read, the address check, the POST and the outcome’s commit in sequence, so whenever the cores are',
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
