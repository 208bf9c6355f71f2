// The publish benchmark's report: its own section of docs/benchmarks.md (between markers, so the
// other benchmarks' sections stay as they are). Every figure and verdict in it is computed from
// the run's own rounds.
import { previewBenchmarkSection, writeBenchmarkSection } from '../support/doc-section.ts';
import { PRODUCTION_LOG_LEVEL } from '../support/platform-log.ts';

export interface Round {
  label: string;
  messages: number;
  elapsedMs: number;
  perSecond: number;
  /** All sends answered (202 / acknowledged) per second, before the last is received. */
  sentPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Server processes' CPU per message, edge + actors (e2e only). */
  cpuUsPerMessage: number;
  /** Breakdown per message: the edge process, the actors process (e2e), the load generator. */
  edgeCpuUs: number;
  actorsCpuUs: number;
  generatorCpuUs: number;
  /** Log bytes the edge and the actors wrote per message (e2e only). */
  edgeLogBytes: number;
  actorsLogBytes: number;
  /** Records per produce request of the bare loop's group commit (bare only). */
  recordsPerRequest: number;
}

export interface BenchResult {
  at: Date;
  machine: string;
  settings: {
    messages: number;
    concurrency: number;
    channels: number;
    rounds: number;
    warmup: number;
    partitions: number;
    logLevel: string;
  };
  rounds: Round[];
  /** 1-minute load average before and after the run: other work on the machine shows here. */
  loadAverage: { before: number; after: number };
}

const START = '<!-- bench:publish:start -->';
const END = '<!-- bench:publish:end -->';
export const TARGET_RATIO = 0.6;

const median = (values: number[]) => {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

function bar(value: number, max: number, width = 50): string {
  return '█'.repeat(Math.max(1, Math.round((value / max) * width))).padEnd(width);
}

export function writeReport(r: BenchResult, write: boolean): string[] {
  const s = r.settings;
  const of = (kind: string) => r.rounds.filter((x) => x.label.startsWith(kind));
  const summary = (kind: string) => {
    const rows = of(kind);
    const m = (f: (x: Round) => number) => median(rows.map(f));
    return {
      perSecond: m((x) => x.perSecond),
      answered: m((x) => x.sentPerSecond),
      p50Ms: m((x) => x.p50Ms),
      p99Ms: m((x) => x.p99Ms),
      edge: m((x) => x.edgeCpuUs),
      actors: m((x) => x.actorsCpuUs),
      generator: m((x) => x.generatorCpuUs),
      edgeLog: m((x) => x.edgeLogBytes),
      actorsLog: m((x) => x.actorsLogBytes),
      perRequest: m((x) => x.recordsPerRequest),
    };
  };
  const e2e = summary('e2e');
  const bare = summary('bare');
  const ratio = e2e.perSecond / bare.perSecond;
  const met = ratio >= TARGET_RATIO;
  const e2eRounds = of('e2e');
  const bareRounds = of('bare');
  const paired = e2eRounds.map((x, i) => x.perSecond / (bareRounds[i]?.perSecond ?? Number.NaN));
  // The actors kept up when the last message arrived soon after the last answer.
  const keptUp = e2eRounds.filter((x) => x.perSecond >= 0.95 * x.sentPerSecond).length;
  const production = s.logLevel === PRODUCTION_LOG_LEVEL;
  const stamp = `${r.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const maxRate = Math.max(e2e.perSecond, bare.perSecond);
  const maxP99 = Math.max(e2e.p99Ms, bare.p99Ms);
  const lines = [
    START,
    '## Realtime publishing: HTTP publish → history → fan-out vs a bare kafkajs loop',
    '',
    `Measured ${stamp} by \`npm run bench:publish\` on ${r.machine}. Kafka, PostgreSQL, Redis, the server`,
    'processes and the load generator share those cores. Per round ' +
      `${s.messages} messages to ${s.channels} channels, ${s.concurrency} in flight; ` +
      `${s.rounds} rounds of each arm, alternating (the order flips every round), after a warm-up of ${s.warmup} each; figures are medians over rounds.`,
    '',
    '- **e2e**: `POST /{product}/realtime/messages` on the production edge with a public key (per-IP limit,',
    '  key check, body cap and validation, namespace policy, publish quota in Redis), answered 202 once the',
    '  command is durably in Kafka (acks=all, idempotent producer, group commit) → channel actor in the',
    '  actors role (offset, history row in PostgreSQL, then fan-out) → Redis pub/sub → received by a pattern',
    '  subscriber in the load generator. Latency: just before the HTTP request → the fan-out message arrives.',
    '  After each round every message is checked to be in `channel_history`. The quota and per-IP limits are',
    '  raised for the run (they would refuse the load by design).',
    '- **bare**: a kafkajs producer and consumer on the same broker and nothing else. The producer',
    '  group-commits as the edge does: idempotent, acks=all, one produce request in flight, the sends that',
    '  arrive meanwhile in the next request (at most 1000 records), each answered when its request is',
    `  acknowledged (${fixed(bare.perRequest, 1)} records per request in this run). The same concurrency, keys (the channel`,
    '  command keys) and count, and records of the same size (the value padded to the encoded Publish',
    `  command, a request id header as the edge's records carry), into a fresh ${s.partitions}-partition topic.`,
    '  Latency: just before the send → `eachMessage`.',
    '',
    production
      ? `Production settings: the edge and the actors run as \`lattice start\` runs them, at the production log level (\`${s.logLevel}\`: the edge writes one line per request, here ${fixed(e2e.edgeLog)} bytes per message, to a file as \`lattice start\` writes to stderr; the actors ${fixed(e2e.actorsLog, 1)} bytes), the actors' periodic jobs (presence sweep, history purge, mail and webhook sweeps) at their intervals over every product, the edge's key snapshot refresh and key change notifications. Differences: the limits above. The bare arm logs nothing.`
      : `**Not the production log level**: the edge and the actors logged at \`${s.logLevel}\` (production: \`${PRODUCTION_LOG_LEVEL}\`, one line per request on the edge); they wrote ${fixed(e2e.edgeLog)} and ${fixed(e2e.actorsLog, 1)} bytes per message. Otherwise as \`lattice start\` runs them (periodic jobs over every product, key snapshot refresh and notifications), and the limits raised.`,
    '',
    '| variant | msg/s | p50 ms | p99 ms | CPU µs/msg: edge | actors | load generator |',
    '| ------- | ----: | -----: | -----: | ---------------: | -----: | -------------: |',
    `| e2e     | ${fixed(e2e.perSecond)} | ${fixed(e2e.p50Ms, 2)} | ${fixed(e2e.p99Ms, 2)} | ${fixed(e2e.edge)} | ${fixed(e2e.actors)} | ${fixed(e2e.generator)} |`,
    `| bare    | ${fixed(bare.perSecond)} | ${fixed(bare.p50Ms, 2)} | ${fixed(bare.p99Ms, 2)} | — | — | ${fixed(bare.generator)} |`,
    '',
    'CPU per message is process CPU time over the round divided by the messages (Kafka, PostgreSQL and',
    'Redis not counted); the bare loop’s producer and consumer run in the load generator process.',
    '',
    `**Throughput ratio e2e / bare: ${fixed(ratio, 3)}** (medians; target ≥ ${TARGET_RATIO}: **${met ? 'met' : 'missed'}**). Per round, each e2e round`,
    `against the bare round of its cycle: ${paired.map((p) => fixed(p, 3)).join(', ')}.`,
    '',
    'Every round:',
    '',
    '| round | received msg/s | answered msg/s | p50 ms | p99 ms | elapsed s | records per produce request |',
    '| ----- | -------------: | -------------: | -----: | -----: | --------: | --------------------------: |',
    ...r.rounds.map(
      (x) =>
        `| ${x.label} | ${fixed(x.perSecond)} | ${fixed(x.sentPerSecond)} | ${fixed(x.p50Ms, 2)} | ${fixed(x.p99Ms, 2)} | ${fixed(x.elapsedMs / 1000, 2)} | ${fixed(x.recordsPerRequest, 1)} |`,
    ),
    '',
    '"answered": all sends answered (HTTP 202, or the produce acknowledged) per second; "received": the',
    'last message received (fan-out, or the consumer) per second.',
    '',
    `What bounds it (load average ${fixed(r.loadAverage.before, 1)} before the run, ${fixed(r.loadAverage.after, 1)} after,`,
    `on ${r.machine.split(' ')[0]} cores: other work on the machine takes its share too, so single rounds vary):`,
    '',
    keptUp === e2eRounds.length
      ? `- In every e2e round the last message arrived within 5% of the last answer: the channel actors kept up with the edge, and the HTTP answers set the pace, about ${fixed((1000 * s.concurrency) / e2e.answered)} ms per publish with ${s.concurrency} in flight.`
      : `- In ${e2eRounds.length - keptUp} of ${e2eRounds.length} e2e rounds the messages arrived more than 5% slower than they were answered (received ${fixed(e2e.perSecond)} against answered ${fixed(e2e.answered)} a second, medians): the channel actors, not the edge, set the pace there.`,
    `- Per message the edge and actors processes together spend ${fixed(e2e.edge + e2e.actors)} µs of CPU (edge ${fixed(e2e.edge)}, actors ${fixed(e2e.actors)}),`,
    `  the bare loop's whole process ${fixed(bare.generator)} µs. The edge: HTTP in and out, the per-IP and quota scripts in Redis, the`,
    '  request log line, and a share of a group-committed produce. The actors: a share of a fetch, of one',
    "  PostgreSQL statement per batch (the state updates and history rows of all the batch's channels) and",
    '  of one Redis pipeline for their fan-out; the bare loop is one share of a produce and one consume.',
    "- The latency gap (p50) is the actor host's cycle: fetch a batch, apply it (PostgreSQL), fan out,",
    '  fetch again; a message published during a cycle waits for the next one.',
    '',
    '```',
    'messages per second (median)',
    `e2e  ${bar(e2e.perSecond, maxRate)} ${fixed(e2e.perSecond)}`,
    `bare ${bar(bare.perSecond, maxRate)} ${fixed(bare.perSecond)}`,
    'p99 latency (median)',
    `e2e  ${bar(e2e.p99Ms, maxP99)} ${fixed(e2e.p99Ms, 2)} ms`,
    `bare ${bar(bare.p99Ms, maxP99)} ${fixed(bare.p99Ms, 2)} ms`,
    '```',
    END,
  ];
  const section = lines.join('\n');
  const preview = write ? '' : previewBenchmarkSection('publish', section);
  if (write) writeBenchmarkSection(START, END, section);
  return [
    `e2e ${fixed(e2e.perSecond)} msg/s (p50 ${fixed(e2e.p50Ms, 2)} ms, p99 ${fixed(e2e.p99Ms, 2)} ms; edge logged ${fixed(e2e.edgeLog)} bytes/msg at ${s.logLevel})`,
    `bare ${fixed(bare.perSecond)} msg/s (p50 ${fixed(bare.p50Ms, 2)} ms, p99 ${fixed(bare.p99Ms, 2)} ms; ${fixed(bare.perRequest, 1)} records per produce request)`,
    `ratio ${fixed(ratio, 3)} (target >= ${TARGET_RATIO}: ${met ? 'met' : 'missed'})${write ? '; written to docs/benchmarks.md' : `; section not written (BENCH_WRITE=0), see ${preview}`}`,
  ];
}
