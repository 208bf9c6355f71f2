// The mail benchmark's report: its own section of docs/benchmarks.md (between markers, so the
// other benchmarks' sections stay as they are) and docs/benchmarks-mail.svg beside it (plot.ts).
// Every figure and verdict in it is computed from the run's own rounds and phases.
import { writeFileSync } from 'node:fs';
import { previewBenchmarkSection, writeBenchmarkSection } from '../support/doc-section.ts';
import { PRODUCTION_LOG_LEVEL } from '../support/platform-log.ts';
import { findings } from './findings.ts';
import { svgOf } from './plot.ts';

/** CPU per message over a measurement, µs; `machine` is every process's (PostgreSQL, Kafka, … too). */
export interface Cpu {
  management: number;
  actors: number;
  smartHost: number;
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
  /** SQL statements (round trips to PostgreSQL) per message, by process. */
  statements: { management: number; actors: number };
  /** Bytes logged per message, by process (absent in results saved before it was measured). */
  logBytes?: { management: number; actors: number };
}

export interface Round {
  label: string;
  arm: 'platform' | 'bare';
  messages: number;
  /** From just before the first send to the last message received by the smart host. */
  elapsedMs: number;
  perSecond: number;
  /** All sends answered (202, or sendMail resolved) per second. */
  answeredPerSecond: number;
  cpu: Cpu;
  /** Messages received by the smart host in each second of the round. */
  perSecondSeries: number[];
}

export interface LatencyResult {
  rate: number;
  /** Each phase's length, and how many phases. */
  seconds: number;
  rounds: number;
  sends: number;
  /** Sends started per second, as scheduled and actually achieved. */
  achievedRate: number;
  non202: number;
  statuses: Record<string, number>;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** Just before the request → the smart host has the message. */
  handoverP50Ms: number;
  handoverP99Ms: number;
  /** Means over the phases. */
  cpu: Cpu;
  phases: Array<{
    label: string;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    non202: number;
    machineBusy: number;
    other: number;
    kafka: number;
  }>;
  /** Every accept latency, ascending (the plot). */
  sorted: number[];
}

export interface BenchResult {
  at: Date;
  machine: string;
  settings: {
    messages: number;
    concurrency: number;
    rounds: number;
    warmup: number;
    latencySeconds: number;
    latencyRounds: number;
    latencyRate: number;
    sendRatePerSecond: number;
    smtpConnections: number;
    htmlBytes: number;
    /** The platform's log level (absent in results saved before it was recorded: then `warn`). */
    logLevel?: string;
  };
  rounds: Round[];
  latency: LatencyResult;
  /** The platform's emails of the run in mail_emails: updates per email, the HOT share, row size. */
  mailEmails: { emails: number; updatesPerEmail: number; hotShare: number; rowBytes: number };
  /** 1-minute load average before and after the run: other work on the machine shows here. */
  loadAverage: { before: number; after: number };
}

const SVG = new URL('../../../docs/benchmarks-mail.svg', import.meta.url);
const START = '<!-- bench:mail:start -->';
const END = '<!-- bench:mail:end -->';
export const TARGET_RATIO = 0.5;
export const TARGET_P99_MS = 20;
/** The send rate the accept latency goal is stated at. */
export const TARGET_LATENCY_RATE = 100;
/** The platform's CPU per email at most this many times the bare loop's. */
export const TARGET_CPU_FACTOR = 3;

export const median = (values: number[]) => {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

function summaryOf(rounds: Round[]) {
  const of = (f: (r: Round) => number) => median(rounds.map(f));
  return {
    perSecond: of((r) => r.perSecond),
    answered: of((r) => r.answeredPerSecond),
    management: of((r) => r.cpu.management),
    actors: of((r) => r.cpu.actors),
    smartHost: of((r) => r.cpu.smartHost),
    generator: of((r) => r.cpu.generator),
    postgres: of((r) => r.cpu.postgres),
    kafka: of((r) => r.cpu.kafka),
    redis: of((r) => r.cpu.redis),
    other: of((r) => r.cpu.other),
    machine: of((r) => r.cpu.machine),
    statementsManagement: of((r) => r.cpu.statements.management),
    statementsActors: of((r) => r.cpu.statements.actors),
    logManagement: of((r) => r.cpu.logBytes?.management ?? Number.NaN),
    logActors: of((r) => r.cpu.logBytes?.actors ?? Number.NaN),
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
  const latencyMet = l.p99Ms < TARGET_P99_MS && l.non202 === 0;
  // The goal is stated at TARGET_LATENCY_RATE sends a second: a phase at another rate gets no verdict.
  const latencyVerdict =
    l.rate === TARGET_LATENCY_RATE
      ? latencyMet
        ? 'met'
        : 'missed'
      : `no verdict: the goal is stated at ${TARGET_LATENCY_RATE} sends a second, this run measured ${l.rate}`;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  // CPU per email: the whole machine's busy time (the kernel's work for each arm included), and
  // the sum of the processes each arm ran (other work on the machine left out).
  const cpuFactor = platform.machine / bare.machine;
  const accountedFactor = (platform.machine - platform.other) / (bare.machine - bare.other);
  const cpuMet = cpuFactor <= TARGET_CPU_FACTOR;
  const logLevel = s.logLevel ?? 'warn';
  const production = logLevel === PRODUCTION_LOG_LEVEL;
  const stamp = `${r.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const dash = (platformOnly: boolean, v: number) => (platformOnly ? '—' : fixed(v));
  /** CPU cells; the platform processes' are dashes in a bare row (they idle then). */
  const cpuCells = (c: Omit<Cpu, 'machineBusy' | 'statements'>, bareRow: boolean) =>
    `${dash(bareRow, c.management)} | ${dash(bareRow, c.actors)} | ${fixed(c.smartHost)} | ${fixed(c.generator)} | ${fixed(c.postgres)} | ${fixed(c.kafka)} | ${fixed(c.redis)} | ${fixed(c.other)} | ${fixed(c.machine)}`;
  const CPU_HEAD =
    'CPU µs/msg: management | actors | smart host | load generator | PostgreSQL | Kafka | Redis | other | whole machine';
  const lines = [
    START,
    '## Mail sending: accepted → received by the smart host vs a bare pooled nodemailer loop',
    '',
    `Measured ${stamp} by \`npm run bench:mail\` on ${r.machine}. PostgreSQL, Kafka, Redis, the`,
    'platform processes, the smart host and the load generator share those cores. Per round',
    `${s.messages} emails, ${s.concurrency} in flight; ${plural(s.rounds, 'round')} of each arm, alternating (the order flips every`,
    `round), after a warm-up of ${s.warmup} each; figures are medians over rounds.`,
    '',
    '- **platform**: `POST /mail/emails` on the management API (`lattice start management`) with the',
    "  product owner's token, so no per-IP limit applies: body checks, verified domain, send rate in Redis,",
    '  suppression check, the email row in PostgreSQL, its `mail.outbound` record in Kafka (acks=all, group',
    '  commit), then 202 → the mail sender actor in the actors role (`lattice start actors`, its own process)',
    '  loads the row, marks the attempt, builds and DKIM-signs the message and hands it',
    '  over through its pooled nodemailer transport, stores the outcome and publishes `email.delivered`,',
    '  which the email-state actor applies. Throughput: from just before the first request to the smart',
    '  host accepting the last message. After each round every accepted email is checked to have reached',
    '  the smart host exactly once (by Message-ID), signed, and to be `delivered` in PostgreSQL.',
    '- **bare**: nodemailer in the load generator process, `pool: true` with the same `maxConnections` and',
    '  `maxMessages: Infinity` as the platform transport, sending the same messages (from, to, subject, html,',
    '  a Message-ID and VERP envelope sender of the same shape, the same List-Unsubscribe headers) with the',
    '  same concurrency to the same smart host, each **DKIM-signed** with a 2048-bit RSA key from',
    "  `generateDkimKeyPair()` (the platform signs every message with the domain's key of that size, so the",
    '  bare loop does too). Throughput: from the first `sendMail` to the smart host accepting the last.',
    '- **smart host**: `test/support/smart-host.ts` (a real smtp-server answering `250 … queued as X`) in a',
    '  child process of its own, shared by both arms: in the load generator process it would take the bare',
    "  arm's event loop, not the platform's. It reports each accepted message (Message-ID, time, whether it",
    '  carries a DKIM-Signature) to the load generator.',
    '',
    'Settings: `MAIL_SEND_RATE_PER_SECOND` raised from its default 10 to',
    `${s.sendRatePerSecond.toLocaleString('en')} for the run (a benchmark beyond a product's default limits runs with them raised); \`SMTP_POOL_MAX_CONNECTIONS\` ${s.smtpConnections} (the default,`,
    `both arms); \`KAFKA_PARTITIONS\` 12 (the default; a fresh topic prefix per run); html ${s.htmlBytes} bytes per email;`,
    'the database `lattice_bench`; everything else at its default.',
    '',
    production
      ? `Production settings: management and the actors run as \`lattice start\` runs them, at the production log level (\`${logLevel}\`: management writes one line per request, here ${fixed(platform.logManagement)} bytes per email, to a file as \`lattice start\` writes to stderr; the actors ${fixed(platform.logActors)} bytes), with the actors' periodic jobs (mail retry and orphan sweeps, idempotency key purge, webhook wake sweep, presence sweep, history purge) at their intervals over every product of the database (products an unfinished earlier run of this benchmark left are deleted first). Differences: the send rate above. The bare loop logs nothing.`
      : `**Not production settings**: management and the actors logged at \`${logLevel}\` (production: \`${PRODUCTION_LOG_LEVEL}\`, one line per management request)${s.logLevel === undefined ? ' and their periodic jobs looked at the benchmark product only' : ''}${Number.isFinite(platform.logManagement) ? `; they wrote ${fixed(platform.logManagement)} and ${fixed(platform.logActors)} bytes per email` : ''}.`,
    '',
    `| arm | received msg/s | accepted msg/s | ${CPU_HEAD} |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| platform | ${fixed(platform.perSecond)} | ${fixed(platform.answered)} | ${cpuCells(platform, false)} |`,
    `| bare | ${fixed(bare.perSecond)} | ${fixed(bare.answered)} | ${cpuCells(bare, true)} |`,
    '',
    'CPU per message is CPU time over the round divided by its emails: of each process of the run (asked',
    'over IPC), of the PostgreSQL, Kafka and Redis processes (/proc/<pid>/stat), and of the whole machine',
    '(busy time in /proc/stat); "other" is the machine\'s busy time none of those accounts for: other work on',
    "the machine (each round starts once the machine is quiet, but may not stay so) and the kernel's. The",
    `machine was ${fixed(100 * platform.busy)}% busy in the platform rounds, ${fixed(100 * bare.busy)}% in the bare rounds. The bare loop's client runs in`,
    `the load generator. Per email the platform ran ${fixed(platform.statementsManagement, 1)} SQL statements in management and ${fixed(platform.statementsActors, 1)} in the actors`,
    '(each a round trip). The mail tables are vacuumed before the run and each platform round (the local',
    'PostgreSQL runs without autovacuum).',
    '',
    `**Throughput ratio platform / bare: ${fixed(ratio, 3)}** (medians; target ≥ ${TARGET_RATIO}: **${met ? 'met' : 'missed'}**). Per round, each`,
    `platform round against the bare round of its cycle: ${paired.map((p) => fixed(p, 3)).join(', ')}.`,
    '',
    `**CPU per email, platform / bare: ${fixed(cpuFactor, 2)}×** (the whole machine's busy time per email, medians; target ≤ ${TARGET_CPU_FACTOR}×: **${cpuMet ? 'met' : 'missed'}**).`,
    `Counting only the processes each arm ran (the whole machine less "other"): ${fixed(accountedFactor, 2)}×${accountedFactor <= TARGET_CPU_FACTOR === cpuMet ? '' : `, which ${cpuMet ? 'misses' : 'meets'} the target: other work on the machine moved the verdict`}.`,
    '',
    `Accept latency: ${plural(l.rounds, 'phase')} of ${l.seconds} s at ${l.rate} sends a second through the management API (${l.sends} sends; each`,
    `phase after a VACUUM and a quiet-machine check, sends started at ${fixed(l.achievedRate, 1)}/s or more), each timed from just`,
    'before the request to the end of its answer, while the actors hand the emails over. The percentiles are',
    'of every send of every phase together. The send rate is the raised one above (at the default 10 a',
    'second the 11th send of a second is refused with 429).',
    '',
    '| sends/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | not 202 | accept → smart host p50 ms | p99 ms | CPU µs/msg: management | actors | Kafka | other | machine busy |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${l.rate} | ${fixed(l.p50Ms, 2)} | ${fixed(l.p90Ms, 2)} | ${fixed(l.p99Ms, 2)} | ${fixed(l.p999Ms, 2)} | ${fixed(l.maxMs, 2)} | ${l.non202} | ${fixed(l.handoverP50Ms, 1)} | ${fixed(l.handoverP99Ms, 1)} | ${fixed(l.cpu.management)} | ${fixed(l.cpu.actors)} | ${fixed(l.cpu.kafka)} | ${fixed(l.cpu.other)} | ${fixed(100 * l.cpu.machineBusy)}% |`,
    '',
    '| phase | p50 ms | p99 ms | max ms | not 202 | Kafka CPU µs/msg | other µs/msg | machine busy |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...l.phases.map(
      (p) =>
        `| ${p.label} | ${fixed(p.p50Ms, 2)} | ${fixed(p.p99Ms, 2)} | ${fixed(p.maxMs, 2)} | ${p.non202} | ${fixed(p.kafka)} | ${fixed(p.other)} | ${fixed(100 * p.machineBusy)}% |`,
    ),
    '',
    `**Accept latency p99: ${fixed(l.p99Ms, 2)} ms** (target < ${TARGET_P99_MS} ms at ${TARGET_LATENCY_RATE} sends a second with every send accepted: **${latencyVerdict}**).`,
    '',
    'Every round:',
    '',
    `| round | received msg/s | accepted msg/s | elapsed s | ${CPU_HEAD} | machine busy |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.rounds.map(
      (x) =>
        `| ${x.label} | ${fixed(x.perSecond)} | ${fixed(x.answeredPerSecond)} | ${fixed(x.elapsedMs / 1000, 2)} | ${cpuCells(x.cpu, x.arm === 'bare')} | ${fixed(100 * x.cpu.machineBusy)}% |`,
    ),
    '',
    `What bounds it (load average ${fixed(r.loadAverage.before, 1)} before the run, ${fixed(r.loadAverage.after, 1)} after, on ${r.machine.split(' ')[0]} cores):`,
    '',
    ...findings(r, platform, bare),
    '',
    '![messages received per second over each round, and the accept latency distribution](benchmarks-mail.svg)',
    END,
  ];
  const section = lines.join('\n');
  let preview = '';
  if (write) {
    writeBenchmarkSection(START, END, section);
    writeFileSync(SVG, svgOf(r));
  } else preview = previewBenchmarkSection('mail', section);
  return [
    `platform ${fixed(platform.perSecond)} msg/s (accepted at ${fixed(platform.answered)}/s; management logged ${fixed(platform.logManagement)} bytes/email at ${logLevel})`,
    `bare ${fixed(bare.perSecond)} msg/s`,
    `ratio ${fixed(ratio, 3)} (target >= ${TARGET_RATIO}: ${met ? 'met' : 'missed'})`,
    `CPU per email platform/bare ${fixed(cpuFactor, 2)}x whole machine, ${fixed(accountedFactor, 2)}x processes (target <= ${TARGET_CPU_FACTOR}x: ${cpuMet ? 'met' : 'missed'})`,
    `accept latency at ${l.rate}/s: p50 ${fixed(l.p50Ms, 2)} ms, p99 ${fixed(l.p99Ms, 2)} ms, max ${fixed(l.maxMs, 2)} ms, ${l.non202} not 202 (p99 target < ${TARGET_P99_MS} ms: ${latencyVerdict})`,
    write
      ? 'written to docs/benchmarks.md and docs/benchmarks-mail.svg'
      : `not written (BENCH_WRITE=0); the section is in ${preview}`,
  ];
}
