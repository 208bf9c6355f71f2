// The latency benchmark's report: its own section of docs/benchmarks.md (between its markers,
// the other sections left as they are) with docs/benchmarks-latency.svg beside it, and the lines
// the runner prints.
import { writeFileSync } from 'node:fs';
import { PIPELINE_STAGES } from '@lattice/kafka';
import { writeBenchmarkSection } from '../support/doc-section.ts';
import type { ArmName } from './arm.ts';
import type { PhaseResult } from './phase.ts';
import { latencySvg } from './plot.ts';
import { goalResults, ratioToBare, type Summary, summarize } from './summary.ts';

export interface LatencyReport {
  date: string;
  node: string;
  cpu: string;
  loadAverage: { before: number; after: number };
  settings: {
    rates: number[];
    rounds: number;
    rampS: number;
    durationS: number;
    channels: number;
    subscribersPerChannel: number;
    clientWorkers: number;
    sockets: number;
    partitions: number;
    barePartitionsConcurrency: number;
    warmupS: number;
    waitQuiet: boolean;
    /** Absent in reports written before the door could be chosen: the edge. */
    publishDoor?: 'management' | 'edge';
    /** The Lattice processes' LOG_LEVEL, and the production default it is compared with. */
    logLevel?: string;
    productionLogLevel?: string;
  };
  arms: ArmName[];
  /** The server processes of each arm, by name. */
  processes: Partial<Record<ArmName, string[]>>;
  skipped: Array<{ arm: ArmName; reason: string }>;
  failures: Array<{ arm: ArmName; ratePerS: number; round: number; reason: string }>;
  phases: PhaseResult[];
}

const SVG = new URL('../../../docs/benchmarks-latency.svg', import.meta.url);
const START = '<!-- bench:latency:start -->';
const END = '<!-- bench:latency:end -->';
const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : '—');

function summaries(r: LatencyReport): Summary[] {
  return r.settings.rates.flatMap((rate) =>
    r.arms.map((arm) => summarize(r.phases, arm, rate)).filter((s): s is Summary => s !== null),
  );
}

const perProcess = (s: Summary) =>
  Object.entries(s.cpuUsPerMessage)
    .map(([name, us]) => `${name} ${f(us)}`)
    .join(' + ');

function header(r: LatencyReport): string[] {
  const s = r.settings;
  const subscribers = s.channels * s.subscribersPerChannel;
  return [
    START,
    '## Realtime latency: HTTP publish → WebSocket subscriber vs the bare pipeline',
    '',
    `Measured ${r.date.slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:latency\` on ${r.cpu}, Node ${r.node} (load average ${r.loadAverage.before.toFixed(1)} before, ${r.loadAverage.after.toFixed(1)} after).`,
    `Every arm's processes, Kafka, Redis, PostgreSQL, the publisher and ${s.clientWorkers} subscriber process${s.clientWorkers > 1 ? 'es' : ''} share those cores; the arms stay up for the whole run`,
    `(the ones not measured idle). ${s.rounds} round${s.rounds > 1 ? 's' : ''}; in each, every rate runs on every arm (arm order reversed every other round${s.waitQuiet ? ', each phase after waiting, 60 s at most, for a quiet machine' : ''}):`,
    `${s.channels} fresh channels × ${s.subscribersPerChannel} subscribers (${subscribers.toLocaleString('en')} connections), a ${s.rampS} s ramp, then ${s.durationS} s measured at the fixed rate${s.warmupS > 0 ? `; a ${s.warmupS} s warm-up per arm first` : ''}.`,
    'Figures are medians over rounds; lost, duplicated and out-of-order counts are totals over rounds, ramp included.',
    `Settings: \`BENCH_RATES=${s.rates.join(',')} BENCH_ROUNDS=${s.rounds} BENCH_DURATION_S=${s.durationS} BENCH_CHANNELS=${s.channels} BENCH_SUBSCRIBERS=${subscribers} BENCH_CLIENT_WORKERS=${s.clientWorkers} BENCH_SOCKETS=${s.sockets} BENCH_RAMP_S=${s.rampS} BENCH_WARMUP_S=${s.warmupS} BENCH_BARE_CONCURRENCY=${s.barePartitionsConcurrency}\`; ${s.partitions} partitions per topic.`,
    '',
    '- **lattice-apart**: every role its own `lattice start ROLE` process (`actors`, `management`, `edge --env production`,',
    '  `gateway --env production`), a product bootstrapped for the run with a `bench` namespace (an hour of history) and a realtime',
    '  public key (`lpk_`) made through the management API, the publish quota (`REALTIME_PUBLISH_*`, docs/realtime-http.md',
    '  "Publish quota") and the per-IP limit (`EDGE_PER_IP_LIMIT`, docs/public-edge.md) raised out of the way.',
    (s.publishDoor ?? 'edge') === 'edge'
      ? '  The publisher POSTs `{channel, data}` to `{edge}/{product_id}/realtime/messages` with the key (`BENCH_PUBLISH_DOOR=edge`);'
      : "  The publisher POSTs `{channel, data, environment}` to the management API's `/realtime/messages` with the owner's member token (the default, `BENCH_PUBLISH_DOOR=management`: loads beyond a product's default limits go through the management API, where no per-IP limit applies; `BENCH_PUBLISH_DOOR=edge` publishes through the public edge with the key);",
    `  ${logLevelNote(s)}`,
    '  Each subscriber gets a delegated token from the edge',
    '  (`/realtime/tokens/issue`), then `auth` and `subscribe` on the gateway. Path: the publish route (credential check, limits, validation,',
    '  group-committed acks=all produce, 202) → Kafka → channel actor (offset, history row in PostgreSQL, Redis fan-out) →',
    '  gateway → WebSocket (docs/realtime.md, docs/realtime-http.md).',
    "- **lattice-one**: `lattice start`, every role in one process (both environments' edges and gateways and the local mailbox",
    '  too), with the same settings, publisher and subscribers.',
    '- **bare-pipeline**: the same parts wired by hand and nothing else, in three processes: `http`, a plain Node `http` server',
    '  with a kafkajs idempotent producer (acks=-1, maxInFlightRequests 1) committing in groups (one send in flight, what arrives',
    '  meanwhile goes in the next) and answering 202 once its send is acknowledged; `consumer`, a kafkajs consumer whose',
    `  eachBatch (${s.barePartitionsConcurrency} partitions at once) inserts the batch into a PostgreSQL table in one statement, then PUBLISHes each record on Redis`,
    "  (its channel's Redis channel, auto-pipelined), kafkajs committing the offsets after; `ws`, a `ws` server subscribed to",
    "  Redis that sends each message as it is to the channel's sockets. A throwaway topic, consumer group and table, dropped at",
    '  the end. No key check, limits, validation, offsets, epochs or replay checks: its latency is the floor the goals are',
    "  stated against. Its kafkajs gets the request-queue fix Lattice's clients get (no 1 ms timer on idle connections; the",
    '  "Mail webhooks" section of this page), so that part costs the same in both.',
    `- **Load clients**, the same for every arm: one publisher process on an open-loop schedule (message i due i / rate s after`,
    `  the start and sent then, whatever earlier answers are doing; keep-alive agent, up to ${s.sockets} sockets), its \`data\``,
    '  `{"s","t","p","a","text"}`: a sequence number per channel, the send time (epoch ms), the phase, the order check; the subscriber processes open',
    '  raw `ws` connections and record receive − send time (the same machine clock) for every delivery of a measured message,',
    "  and check every delivery against its channel's sequence: **lost** (accepted, never received), **dup** (received",
    `  again), **ooo** (received before a message of its channel that was answered 2xx before it was sent), counted in deliveries.`,
    `  A channel's publishes leave ${s.channels} ÷ rate s apart, each without waiting for the answer to the one before, so two`,
    '  publishes in flight together may take either order; each carries the highest sequence number of its channel answered',
    '  before it was sent (`a` in its `data`), which must arrive first.',
    '- **answered/s**: 2xx answers during the measured phase ÷ its length; **deliveries/s**: pushes the subscribers received',
    '  during it. **CPU µs/msg**: user + system time of each server process (`/proc/<pid>/stat`) over the measured phase ÷',
    '  the messages published in it; **infra** is PostgreSQL, Kafka and Redis together (all of their processes, whichever arm',
    '  or another tenant of the machine made the work).',
    '',
  ];
}

/** Where the time goes: each Lattice row's stage p50 / p99 (docs/architecture.md "Where the time goes"). */
function stageTable(rows: Summary[]): string[] {
  const withStages = rows.filter((s) => Object.keys(s.stages).length > 0);
  if (withStages.length === 0) return [];
  const names = PIPELINE_STAGES.realtime;
  return [
    "Where the time goes: each stage's p50 / p99 in ms over the measured phase, read from the roles' stage histograms",
    '(bucket bounds 1, 2.5, 5, 10, 25, 50, 100, 250 ms, …, interpolated within a bucket; medians over rounds):',
    '',
    `| arm | msg/s | ${names.join(' | ')} |`,
    `| --- | ---: | ${names.map(() => '---:').join(' | ')} |`,
    ...withStages.map(
      (s) =>
        `| ${s.arm} | ${int(s.ratePerS)} | ${names
          .map((n) => {
            const st = s.stages[n];
            return st ? `${f(st.p50Ms, 1)} / ${f(st.p99Ms, 1)}` : '—';
          })
          .join(' | ')} |`,
    ),
    '',
  ];
}

/** At what level the Lattice processes logged, and whether that is production's. */
function logLevelNote(s: LatencyReport['settings']): string {
  const level = s.logLevel ?? 'warn';
  const production = s.productionLogLevel ?? 'info';
  const how =
    level === production
      ? 'its production level'
      : `where production runs at \`${production}\`: a difference, set by BENCH_LOG_LEVEL`;
  return `Every Lattice process logs at \`${level}\` (${how}) and runs every maintenance job of its role.`;
}

function tables(r: LatencyReport): string[] {
  const rows = summaries(r);
  const bareRates = new Set(r.phases.filter((p) => p.arm === 'bare-pipeline').map((p) => p.ratePerS));
  const ratios = rows.filter((s) => s.arm !== 'bare-pipeline' && bareRates.has(s.ratePerS));
  const goals = goalResults(r.phases);
  return [
    '| arm | msg/s | p50 ms | p95 ms | p99 ms | max ms | answered/s | deliveries/s | lost / dup / ooo | publish errors | 202 p50 / p99 ms | server CPU µs/msg | by process µs/msg | infra µs/msg |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
    ...rows.map(
      (s) =>
        `| ${s.arm} | ${int(s.ratePerS)} | ${f(s.p50Ms, 2)} | ${f(s.p95Ms, 2)} | ${f(s.p99Ms, 2)} | ${f(s.maxMs, 1)} | ${int(s.answeredPerS)} | ${int(s.deliveriesPerS)} | ${s.lost} / ${s.duplicated} / ${s.outOfOrder} | ${s.publishFailed} | ${f(s.answerP50Ms, 2)} / ${f(s.answerP99Ms, 2)} | ${f(s.serverUsPerMessage)} | ${perProcess(s)} | ${f(s.infraUsPerMessage)} |`,
    ),
    '',
    ...(ratios.length
      ? [
          'Lattice ÷ bare-pipeline (median of the per-round ratios):',
          '',
          '| arm | msg/s | p50 ratio | p99 ratio |',
          '| --- | ---: | ---: | ---: |',
          ...ratios.map(
            (s) =>
              `| ${s.arm} | ${int(s.ratePerS)} | ${f(ratioToBare(r.phases, s.arm, s.ratePerS, 'p50Ms'), 2)} | ${f(ratioToBare(r.phases, s.arm, s.ratePerS, 'p99Ms'), 2)} |`,
          ),
          '',
        ]
      : []),
    ...stageTable(rows),
    '| goal | measured | verdict |',
    '| --- | --- | --- |',
    ...goals.map((g) => `| ${g.goal} | ${g.measured} | ${g.verdict} |`),
    '',
    ...r.skipped.map(
      (x) => `**${x.arm}: not measured**, it did not start: \`${x.reason.split('\n')[0]}\`.\n`,
    ),
    ...r.failures.map(
      (x) => `**${x.arm} at ${x.ratePerS}/s, round ${x.round}: failed**: \`${x.reason.split('\n')[0]}\`.\n`,
    ),
    'Every phase:',
    '',
    '| arm | msg/s | round | p50 ms | p99 ms | max ms | answered/s | deliveries/s | lost / dup / ooo | server CPU µs/msg | infra µs/msg | machine busy | drain s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.phases.map(
      (p) =>
        `| ${p.arm} | ${int(p.ratePerS)} | ${p.round}/${r.settings.rounds} | ${f(p.p50Ms, 2)} | ${f(p.p99Ms, 2)} | ${f(p.maxMs, 1)} | ${int(p.answeredPerS)} | ${int(p.deliveriesPerS)} | ${p.lost} / ${p.duplicated} / ${p.outOfOrder} | ${f(p.serverUsPerMessage)} | ${f(p.infraUsPerMessage.postgres + p.infraUsPerMessage.kafka + p.infraUsPerMessage.redis)} | ${f(p.machineBusy * 100)} % | ${f(p.drainMs / 1000, 1)} |`,
    ),
    '',
  ];
}

/** The section of docs/benchmarks.md, markers included. */
export function sectionOf(r: LatencyReport): string {
  return [
    ...header(r),
    ...tables(r),
    '![p50 and p99 publish → subscriber latency per arm and rate](benchmarks-latency.svg)',
    END,
  ].join('\n');
}

/** The plot, docs/benchmarks-latency.svg. */
export function plotOf(r: LatencyReport): string {
  return latencySvg(r.arms, r.settings.rates, summaries(r));
}

/** Writes the report (when `write`) and returns the summary lines for the console. */
export function writeReport(r: LatencyReport, write: boolean): string[] {
  const rows = summaries(r);
  if (write) {
    writeBenchmarkSection(START, END, sectionOf(r));
    writeFileSync(SVG, plotOf(r));
  }
  return [
    ...rows.map(
      (s) =>
        `${s.arm.padEnd(13)} ${String(s.ratePerS).padStart(5)}/s: p50 ${f(s.p50Ms, 2)} p95 ${f(s.p95Ms, 2)} p99 ${f(s.p99Ms, 2)} max ${f(s.maxMs, 1)} ms; ${int(s.answeredPerS)} answered/s, ${int(s.deliveriesPerS)} deliveries/s; lost ${s.lost}, dup ${s.duplicated}, ooo ${s.outOfOrder}, publish errors ${s.publishFailed}; server ${f(s.serverUsPerMessage)} µs/msg (${perProcess(s)}), infra ${f(s.infraUsPerMessage)} µs/msg`,
    ),
    ...rows
      .filter((s) => s.arm !== 'bare-pipeline')
      .map(
        (s) =>
          `${s.arm} ÷ bare-pipeline at ${s.ratePerS}/s: p50 ${f(ratioToBare(r.phases, s.arm, s.ratePerS, 'p50Ms'), 2)} ×, p99 ${f(ratioToBare(r.phases, s.arm, s.ratePerS, 'p99Ms'), 2)} ×`,
      ),
    ...goalResults(r.phases).map((g) => `goal: ${g.goal}: ${g.measured}: ${g.verdict}`),
    ...r.skipped.map((x) => `${x.arm} skipped: ${x.reason.split('\n')[0]}`),
    ...r.failures.map((x) => `${x.arm} ${x.ratePerS}/s round ${x.round} failed: ${x.reason.split('\n')[0]}`),
    write ? 'written to docs/benchmarks.md and docs/benchmarks-latency.svg' : 'not written (BENCH_WRITE=0)',
  ];
}
