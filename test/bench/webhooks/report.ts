// The webhook benchmark's report: its own section of docs/benchmarks.md (between markers, so the
// other benchmarks' sections stay as they are) and docs/benchmarks-webhooks.svg beside it (drawn
// by hand: the event-to-first-attempt distribution, and each round's deliveries a second by arm).
// Every figure and verdict in it is computed from the run's own rounds and phases.
import { writeFileSync } from 'node:fs';
import { previewBenchmarkSection, writeBenchmarkSection } from '../support/doc-section.ts';
import { PRODUCTION_LOG_LEVEL } from '../support/platform-log.ts';
import { findings } from './findings.ts';
import { svgOf } from './plot.ts';

/** CPU per delivery over a measurement, µs; `machine` is every process's (PostgreSQL, Kafka, … too). */
export interface Cpu {
  actors: number;
  receiver: number;
  /** This process: the event publisher (platform) or the bare loop's HTTPS client (bare). */
  generator: number;
  /** The infrastructure's processes (/proc): every PostgreSQL process, the Kafka broker, Redis. */
  postgres: number;
  kafka: number;
  redis: number;
  machine: number;
  /** The machine's busy time not in any process above: other work on the machine, the kernel's. */
  other: number;
  /** Share of the machine's CPU time that was busy during the measurement (0..1). */
  machineBusy: number;
  /** SQL statements (round trips to PostgreSQL) of the actors per delivery: all, and on the webhook tables. */
  statements: number;
  webhookStatements: number;
  /** TLS handshakes the receiver made during the measurement (a count, not per delivery). */
  handshakes: number;
  /** Bytes the actors logged per delivery (absent in results saved before it was measured). */
  logBytes?: number;
}

export interface Round {
  label: string;
  arm: 'platform' | 'bare';
  deliveries: number;
  /** From just before the first publish (or POST) to the last request's arrival at the receiver. */
  elapsedMs: number;
  perSecond: number;
  /** Events acknowledged by Kafka per second (platform rounds; NaN for bare). */
  publishedPerSecond: number;
  cpu: Cpu;
  /** Requests the receiver got in each second of the round. */
  perSecondSeries: number[];
}

export interface LatencyResult {
  rate: number;
  /** Each phase's length, how many phases, endpoints per phase. */
  seconds: number;
  rounds: number;
  endpoints: number;
  deliveries: number;
  /** Events published per second: the lowest phase's. */
  achievedRate: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** The publish call until Kafka acknowledged the event (acks=all): part of every delivery's latency. */
  publishAckP50Ms: number;
  publishAckP99Ms: number;
  /** The publish call → the fan-out's insert of the delivery row (its created_at). */
  recordedP50Ms: number;
  recordedP99Ms: number;
  /** The delivery row's insert → its first request at the receiver (wake, endpoint loop). */
  attemptedP50Ms: number;
  attemptedP99Ms: number;
  /** Means over the phases. */
  cpu: Cpu;
  phases: Array<{
    label: string;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    achievedRate: number;
    deliveredRate: number;
    machineBusy: number;
    actors: number;
    /** The machine's busy time no process of the run accounts for (other work), µs/delivery. */
    other: number;
  }>;
  /** Every event-to-first-attempt time, ascending (the plot). */
  sorted: number[];
}

export interface BenchResult {
  at: Date;
  machine: string;
  settings: {
    endpoints: number;
    events: number;
    rounds: number;
    warmup: number;
    latencySeconds: number;
    latencyRounds: number;
    latencyRate: number;
    latencyEndpoints: number;
    bareSockets: number;
    kafkaPartitions: number;
    webhookTimeoutMs: number;
    payloadBytes: number;
    /** The actors' log level (absent in results saved before it was recorded: then `warn`). */
    logLevel?: string;
  };
  rounds: Round[];
  latency: LatencyResult;
  /** 1-minute load average before and after the run: other work on the machine shows here. */
  loadAverage: { before: number; after: number };
}

const SVG = new URL('../../../docs/benchmarks-webhooks.svg', import.meta.url);
const START = '<!-- bench:webhooks:start -->';
const END = '<!-- bench:webhooks:end -->';
export const TARGET_RATIO = 0.5;
export const TARGET_P99_MS = 100;
/** The event rate the latency goal is stated at. */
export const TARGET_LATENCY_RATE = 100;

/** The latency verdict: met or missed at the goal's rate, none at another rate. */
export function latencyVerdict(l: Pick<LatencyResult, 'rate' | 'p99Ms'>): string {
  if (l.rate !== TARGET_LATENCY_RATE)
    return `no verdict: the goal is stated at ${TARGET_LATENCY_RATE} events a second, this run measured ${l.rate}`;
  return Number.isFinite(l.p99Ms) && l.p99Ms < TARGET_P99_MS ? 'met' : 'missed';
}
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const median = (values: number[]) => {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

export function summaryOf(rounds: Round[]) {
  const of = (f: (r: Round) => number) => median(rounds.map(f));
  return {
    perSecond: of((r) => r.perSecond),
    published: of((r) => r.publishedPerSecond),
    actors: of((r) => r.cpu.actors),
    receiver: of((r) => r.cpu.receiver),
    generator: of((r) => r.cpu.generator),
    postgres: of((r) => r.cpu.postgres),
    kafka: of((r) => r.cpu.kafka),
    redis: of((r) => r.cpu.redis),
    other: of((r) => r.cpu.other),
    machine: of((r) => r.cpu.machine),
    statements: of((r) => r.cpu.statements),
    webhookStatements: of((r) => r.cpu.webhookStatements),
    logBytes: of((r) => r.cpu.logBytes ?? Number.NaN),
    busy: of((r) => r.cpu.machineBusy),
  };
}
export type Summary = ReturnType<typeof summaryOf>;

/** Writes the report (when `write`) and returns the summary lines for the console. */
export function writeReport(r: BenchResult, write: boolean): string[] {
  const s = r.settings;
  const platformRounds = r.rounds.filter((x) => x.arm === 'platform');
  const bareRounds = r.rounds.filter((x) => x.arm === 'bare');
  const platform = summaryOf(platformRounds);
  const bare = summaryOf(bareRounds);
  const ratio = platform.perSecond / bare.perSecond;
  const paired = platformRounds.map((p, i) => p.perSecond / (bareRounds[i]?.perSecond ?? Number.NaN));
  const met = ratio >= TARGET_RATIO;
  const l = r.latency;
  const verdict = latencyVerdict(l);
  const stamp = `${r.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const perRound = s.events * s.endpoints;
  const logLevel = s.logLevel ?? 'warn';
  const production = logLevel === PRODUCTION_LOG_LEVEL;
  const cpuCells = (
    c: Pick<Cpu, 'actors' | 'receiver' | 'generator' | 'postgres' | 'kafka' | 'redis' | 'other' | 'machine'>,
    bareRow: boolean,
  ) =>
    `${bareRow ? '—' : fixed(c.actors)} | ${fixed(c.receiver)} | ${fixed(c.generator)} | ${fixed(c.postgres)} | ${fixed(c.kafka)} | ${fixed(c.redis)} | ${fixed(c.other)} | ${fixed(c.machine)}`;
  const CPU_HEAD =
    'CPU µs/delivery: actors | receiver | load generator | PostgreSQL | Kafka | Redis | other | whole machine';
  const cpuPer1000 = (us: number) => fixed(us / 1000, 2);
  const lines = [
    START,
    '## Mail webhooks: event → HTTPS delivery vs a bare keep-alive HTTPS POST loop',
    '',
    `Measured ${stamp} by \`npm run bench:webhooks\` on ${r.machine}. PostgreSQL, Kafka, Redis, the`,
    'actors process, the receiver and the load generator share those cores; each measurement starts once',
    'the machine is quiet, but other work on it (another session’s tests) may start during one: the',
    'load averages and the "other" column below show it.',
    '',
    '- **platform**: mail events (`email.delivered`, as the mail sender publishes them) produced straight',
    '  onto `mail.events` by the load generator with `createMailEventPublisher` (acks=all, group commit) →',
    '  the actors role (`lattice start actors`, its own process, with',
    '  `WEBHOOK_ALLOW_PRIVATE_TARGETS=true`): the webhook fan-out records one delivery row per subscribed',
    '  endpoint (one statement) and wakes each endpoint’s loop, in process (this one process owns every',
    '  partition of `mail.webhook-deliveries`, so no wake record is produced) → the endpoint',
    '  actor’s loop reads the endpoint’s oldest pending deliveries (32 at a time) and for each checks the',
    '  target’s address (a lookup of `localhost` at every attempt), signs it and POSTs it over HTTPS through',
    '  the requester’s keep-alive pool, then stores the outcome (group commit with other loops’ outcomes).',
    '  Endpoints are rows inserted into `mail_webhook_endpoints` for each measurement (URL',
    '  `https://localhost:<port>/w/<round>/<i>`, subscribed to `email.delivered`) and deleted after it.',
    '- **bare**: in the load generator process, one lane per endpoint, each a sequential loop of',
    '  `https.request` POSTs through one keep-alive `https.Agent` with the options of the platform’s',
    `  requester (\`maxSockets\` ${s.bareSockets}, its per-target default; LIFO; 4 s idle timeout) but Node’s default CA list`,
    '  (bundled plus NODE_EXTRA_CA_CERTS) instead of its trust store (the system store plus',
    '  NODE_EXTRA_CA_CERTS, one secure context), to the same receiver, as many',
    `  requests as a platform round delivers. Each carries a real delivery body (${s.payloadBytes} bytes) and the`,
    '  same headers (`webhook-id`, `webhook-timestamp`, a `webhook-signature` HMAC computed for that',
    '  request under its lane’s secret, `content-type`, `user-agent`).',
    '- **receiver**: an HTTPS server (`node:https`, the test CA’s certificate from',
    '  `scripts/ensure-test-ca.sh`, trusted by both arms through `NODE_EXTRA_CA_CERTS`) in a child process',
    '  of its own, shared by both arms. It answers 204 once a request’s body is in, verifies nothing, and',
    '  reports each request’s webhook-id, path and arrival time (stamped when its head is parsed) to the',
    '  load generator. Both processes stamp with `performance.timeOrigin + performance.now()`.',
    '',
    `Throughput: ${plural(s.rounds, 'round')} of each arm, alternating (the order flips every round), after a warm-up of`,
    `${s.warmup} events (× ${s.endpoints} endpoints) each; per round ${s.events} events × ${s.endpoints} endpoints = ${perRound} deliveries`,
    '(published as fast as the publisher takes them). Deliveries per second',
    'from just before the first publish (or POST) to the last request’s arrival; medians over rounds.',
    'After each platform round every delivery must have reached the receiver exactly once (by webhook-id:',
    'the fan-out’s name-based id of event and endpoint), at its endpoint’s path, and be a row that',
    '`succeeded` with `attempts = 1`; after each bare round every request once.',
    '',
    `Settings: \`KAFKA_PARTITIONS\` ${s.kafkaPartitions} (a fresh topic prefix per run), \`WEBHOOK_TIMEOUT_MS\` ${s.webhookTimeoutMs}, \`WEBHOOK_ALLOW_PRIVATE_TARGETS=true\`,`,
    `the database \`lattice_bench\`, one product; BENCH_ENDPOINTS=${s.endpoints} BENCH_EVENTS=${s.events} BENCH_ROUNDS=${s.rounds}`,
    `BENCH_WARMUP=${s.warmup} BENCH_BARE_SOCKETS=${s.bareSockets} BENCH_LATENCY_RATE=${s.latencyRate} BENCH_LATENCY_SECONDS=${s.latencySeconds}`,
    `BENCH_LATENCY_ROUNDS=${s.latencyRounds} BENCH_LATENCY_ENDPOINTS=${s.latencyEndpoints}; everything else at its default.`,
    '',
    production
      ? `Production settings: the actors run as \`lattice start actors\` runs them, at the production log level (\`${logLevel}\`, to a file as \`lattice start\` writes to stderr: ${fixed(platform.logBytes, 1)} bytes per delivery), with their periodic jobs (webhook wake sweep, mail retry and orphan sweeps, idempotency key purge, presence sweep, history purge) at their intervals over every product of the database (products an unfinished earlier run of this benchmark left are deleted first). Differences: \`WEBHOOK_ALLOW_PRIVATE_TARGETS=true\` (the receiver is on this machine), events produced by the load generator instead of the mail sender. The bare loop logs nothing.`
      : `**Not production settings**: the actors logged at \`${logLevel}\` (production: \`${PRODUCTION_LOG_LEVEL}\`)${s.logLevel === undefined ? ' and their periodic jobs looked at the benchmark product only' : ''}${Number.isFinite(platform.logBytes) ? `; ${fixed(platform.logBytes, 1)} bytes per delivery` : ''}.`,
    '',
    `| arm | deliveries/s | events published/s | ${CPU_HEAD} |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| platform | ${fixed(platform.perSecond)} | ${fixed(platform.published)} | ${cpuCells(platform, false)} |`,
    `| bare | ${fixed(bare.perSecond)} | — | ${cpuCells(bare, true)} |`,
    '',
    'CPU per delivery is CPU time over the round divided by its deliveries: of each process of the run',
    '(asked over IPC), of the PostgreSQL, Kafka and Redis processes (/proc/<pid>/stat), and of the whole',
    'machine (busy time in /proc/stat); "other" is the busy time none of those accounts for (other work on',
    "the machine, the kernel's). PostgreSQL and Kafka are the machine's shared instances: another session's",
    'use of them counts in their columns, and PostgreSQL backends that exit count then (in their parent’s',
    `child time), so "other" can come out below zero. The machine was ${fixed(100 * platform.busy)}% busy in the platform rounds, ${fixed(100 * bare.busy)}% in the bare`,
    `rounds. **The actors process spent ${cpuPer1000(platform.actors)} CPU seconds per 1000 deliveries** (${cpuPer1000(l.cpu.actors)} at the latency phases' ${l.rate} events`,
    `a second). Per delivery it ran ${fixed(platform.statements, 2)} SQL statements, ${fixed(platform.webhookStatements, 2)} of them on the webhook tables (the rest:`,
    'the email-state actor looking up the events’ emails, which have no rows here). The webhook tables are',
    'vacuumed before the run and before each platform measurement (the local PostgreSQL runs without',
    'autovacuum).',
    '',
    `**Throughput ratio platform / bare: ${fixed(ratio, 3)}** (medians; goal ≥ ${TARGET_RATIO}: **${met ? 'met' : 'missed'}**). Per round, each`,
    `platform round against the bare round of its cycle: ${paired.map((p) => fixed(p, 3)).join(', ')}.`,
    '',
    `Event → first attempt: ${plural(l.rounds, 'phase')} of ${l.seconds} s at ${l.rate} events a second to ${l.endpoints === 1 ? 'one endpoint' : `${l.endpoints} endpoints`} (${l.deliveries} deliveries;`,
    `each phase after a VACUUM and a quiet-machine check; events published at ${fixed(l.achievedRate, 1)}/s or more), each`,
    'delivery timed from just before its event’s publish call to its first request’s arrival at the',
    'receiver. The percentiles are of every delivery of every phase together. Publish ack is the part',
    'until Kafka acknowledged the event (acks=all); "recorded" splits each delivery’s time at the',
    'fan-out’s insert of its row (`created_at`, PostgreSQL’s clock on the same machine): publish →',
    'recorded (Kafka, the fan-out consumer, its statement), recorded → first request (the commit, the',
    'in-process wake, the endpoint loop: its window read, the address check, the POST).',
    '',
    '| events/s | endpoints | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | publish ack p50 ms | publish → recorded p50 ms | p99 ms | recorded → first request p50 ms | p99 ms |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${l.rate} | ${l.endpoints} | ${fixed(l.p50Ms, 2)} | ${fixed(l.p90Ms, 2)} | ${fixed(l.p99Ms, 2)} | ${fixed(l.p999Ms, 2)} | ${fixed(l.maxMs, 2)} | ${fixed(l.publishAckP50Ms, 2)} | ${fixed(l.recordedP50Ms, 1)} | ${fixed(l.recordedP99Ms, 1)} | ${fixed(l.attemptedP50Ms, 1)} | ${fixed(l.attemptedP99Ms, 1)} |`,
    '',
    `Per delivery at this rate (means over the phases): CPU µs actors ${fixed(l.cpu.actors)}, receiver ${fixed(l.cpu.receiver)}, load generator ${fixed(l.cpu.generator)},`,
    `PostgreSQL ${fixed(l.cpu.postgres)}, Kafka ${fixed(l.cpu.kafka)}, other ${fixed(l.cpu.other)}, whole machine ${fixed(l.cpu.machine)} (${fixed(100 * l.cpu.machineBusy)}% busy); ${fixed(l.cpu.statements, 2)} SQL`,
    `statements in the actors (${fixed(l.cpu.webhookStatements, 2)} on the webhook tables).`,
    '',
    '| phase | events/s | delivered/s | p50 ms | p99 ms | max ms | actors CPU µs/delivery | other µs/delivery | machine busy |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...l.phases.map(
      (p) =>
        `| ${p.label} | ${fixed(p.achievedRate, 1)} | ${fixed(p.deliveredRate, 1)} | ${fixed(p.p50Ms, 2)} | ${fixed(p.p99Ms, 2)} | ${fixed(p.maxMs, 2)} | ${fixed(p.actors)} | ${fixed(p.other)} | ${fixed(100 * p.machineBusy)}% |`,
    ),
    '',
    `**Event → first attempt: p50 ${fixed(l.p50Ms, 2)} ms, p99 ${fixed(l.p99Ms, 2)} ms** (goal p99 < ${TARGET_P99_MS} ms at ${TARGET_LATENCY_RATE} events a second: **${verdict}**).`,
    '',
    'Every round:',
    '',
    `| round | deliveries/s | elapsed s | ${CPU_HEAD} | SQL/delivery | machine busy |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.rounds.map(
      (x) =>
        `| ${x.label} | ${fixed(x.perSecond)} | ${fixed(x.elapsedMs / 1000, 2)} | ${cpuCells(x.cpu, x.arm === 'bare')} | ${x.arm === 'bare' ? '—' : fixed(x.cpu.statements, 2)} | ${fixed(100 * x.cpu.machineBusy)}% |`,
    ),
    '',
    `What bounds it (load average ${fixed(r.loadAverage.before, 1)} before the run, ${fixed(r.loadAverage.after, 1)} after, on ${r.machine.split(' ')[0]} cores):`,
    '',
    ...findings(r, platform, bare),
    '',
    '![event-to-first-attempt distribution, and deliveries per second of each round by arm](benchmarks-webhooks.svg)',
    END,
  ];
  const section = lines.join('\n');
  let preview = '';
  if (write) {
    writeBenchmarkSection(START, END, section);
    writeFileSync(SVG, svgOf(r));
  } else preview = previewBenchmarkSection('webhooks', section);
  return [
    `platform ${fixed(platform.perSecond)} deliveries/s (events published at ${fixed(platform.published)}/s)`,
    `bare ${fixed(bare.perSecond)} requests/s`,
    `ratio ${fixed(ratio, 3)} (goal >= ${TARGET_RATIO}: ${met ? 'met' : 'missed'})`,
    `actors CPU ${cpuPer1000(platform.actors)} s per 1000 deliveries; ${fixed(platform.statements, 2)} SQL statements per delivery (${fixed(platform.webhookStatements, 2)} on webhook tables)`,
    `event -> first attempt at ${l.rate}/s: p50 ${fixed(l.p50Ms, 2)} ms, p90 ${fixed(l.p90Ms, 2)} ms, p99 ${fixed(l.p99Ms, 2)} ms, max ${fixed(l.maxMs, 2)} ms (p99 goal < ${TARGET_P99_MS} ms: ${verdict})`,
    write
      ? 'written to docs/benchmarks.md and docs/benchmarks-webhooks.svg'
      : `not written (BENCH_WRITE=0); the section is in ${preview}`,
  ];
}
