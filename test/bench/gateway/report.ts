// The gateway benchmark's report: its own section of docs/benchmarks.md (between markers, so the
// other benchmarks' sections stay as they are) and docs/benchmarks-gateway.svg (plot.ts). Every
// figure and verdict in it is computed from the run's own rounds and phases; the publish-path
// shapes and the memory readings have files of their own (report-publish-path.ts,
// report-memory.ts).
import { writeFileSync } from 'node:fs';
import { previewBenchmarkSection, writeBenchmarkSection } from '../support/doc-section.ts';
import { PRODUCTION_LOG_LEVEL } from '../support/platform-log.ts';
import type { PhaseResult, Shape } from './fan-out.ts';
import type { VariantName } from './messages.ts';
import type { LatencyResult, MemoryResult } from './platform-phases.ts';
import { svgOf } from './plot.ts';
import type { PublishShape } from './publish-path.ts';
import { memoryFigures, memoryLines } from './report-memory.ts';
import {
  type PublishRoundResult,
  publishPathLines,
  publishPathRatio,
  publishPathRoundRows,
} from './report-publish-path.ts';

export interface RoundResult {
  variant: VariantName;
  shape: Shape['id'];
  round: number;
  connectMs: number;
  saturation: PhaseResult;
  fixed: PhaseResult | null;
}

export interface BenchReport {
  date: string;
  node: string;
  cpu: string;
  settings: {
    rounds: number;
    durationS: number;
    fixedDeliveriesPerS: number;
    clientWorkers: number;
    windowDeliveries: number;
    memoryConnections: number;
    latencyS: number;
    memoryVariants: string[];
    latencyVariants: string[];
    /** BENCH_SCALE: subscribers per channel and publish rates scaled from the goals' shapes. */
    scale: number;
    logLevel: string;
  };
  shapes: Shape[];
  publishShapes: PublishShape[];
  publishRounds: PublishRoundResult[];
  variants: VariantName[];
  skipped: Array<{ variant: VariantName; reason: string }>;
  rounds: RoundResult[];
  latency: Array<{ variant: VariantName } & LatencyResult>;
  memory: Array<{ variant: VariantName } & MemoryResult>;
  loadAverage: { before: number; after: number };
}

const SVG = new URL('../../../docs/benchmarks-gateway.svg', import.meta.url);
const START = '<!-- bench:gateway:start -->';
const END = '<!-- bench:gateway:end -->';
export const GOALS = {
  ofBare: 0.7,
  overSocketIo: 1.5,
  /** Publish-to-browser latency, stated at this rate and number of subscribers. */
  latencyP50Ms: 15,
  latencyP99Ms: 50,
  latencyRatePerS: 1000,
  latencySubscribers: 1000,
};
/** A server using less than this many cores at saturation had room left: the clients capped it. */
const SERVER_BOUND_CORES = 0.9;
/** Busy cores of the bench's own processes at which the two cores count as full. */
const FULL_CORES = 1.6;

function median(values: number[]): number {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
export const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
export const SHAPE_TEXT = (s: Shape) =>
  `${s.id}: ${s.channels} channel${s.channels > 1 ? 's' : ''} × ${s.subscribersPerChannel.toLocaleString('en')} subscribers`;

export interface Summary {
  deliveriesPerS: number;
  serverCores: number;
  clientCores: number;
  fixedUs: number;
  fixedPerS: number;
  cappedByClients: boolean;
  /** What set the saturation figure: `server`, `clients` (the cores were full) or `TCP stalls`. */
  boundBy: string;
  retransmits: number;
  fellBehind: boolean;
}

/**
 * The server when it used most of a core (Node serves on one thread); else the load clients when
 * the machine's cores were full (server + clients + feed ≥ FULL_CORES, the rest going to Redis,
 * the kernel's softirqs and other tenants); else TCP stalls: CPU left idle while receivers' full
 * windows and retransmission timers (≥ 200 ms on Linux) held the pipeline.
 */
function boundBy(rounds: RoundResult[]): string {
  const server = median(rounds.map((r) => r.saturation.serverCores));
  const busy = median(
    rounds.map((r) => r.saturation.serverCores + r.saturation.clientCores + r.saturation.feedCores),
  );
  if (server >= SERVER_BOUND_CORES) return 'server';
  return busy >= FULL_CORES ? 'clients' : 'TCP stalls';
}

function summarize(rounds: RoundResult[]): Summary {
  const serverCores = median(rounds.map((r) => r.saturation.serverCores));
  return {
    deliveriesPerS: median(rounds.map((r) => r.saturation.deliveriesPerS)),
    serverCores,
    clientCores: median(rounds.map((r) => r.saturation.clientCores)),
    fixedUs: median(rounds.map((r) => r.fixed?.serverCpuUsPerDelivery ?? Number.NaN)),
    fixedPerS: median(rounds.map((r) => r.fixed?.deliveriesPerS ?? Number.NaN)),
    cappedByClients: serverCores < SERVER_BOUND_CORES,
    boundBy: boundBy(rounds),
    retransmits: median(rounds.map((r) => r.saturation.tcpRetransmits)),
    fellBehind: rounds.some((r) => r.fixed?.fellBehind),
  };
}

/** Median over rounds of `a`'s figure ÷ `b`'s in the same round (drift hits both alike). */
function paired(
  rounds: RoundResult[],
  shape: string,
  a: VariantName,
  b: VariantName,
  figure: (r: RoundResult) => number,
): number {
  const of = (v: VariantName) => rounds.filter((r) => r.shape === shape && r.variant === v);
  const bs = of(b);
  return median(
    of(a).map(
      (r) =>
        figure(r) /
        (bs.find((x) => x.round === r.round) ? figure(bs.find((x) => x.round === r.round)!) : Number.NaN),
    ),
  );
}

/** Writes the report (when `write`) and returns the summary lines for the console. */
export function writeReport(report: BenchReport, write: boolean): string[] {
  const s = report.settings;
  const summaries = new Map<string, Summary>();
  for (const shape of report.shapes)
    for (const v of report.variants)
      summaries.set(
        `${v}|${shape.id}`,
        summarize(report.rounds.filter((r) => r.variant === v && r.shape === shape.id)),
      );
  const get = (v: VariantName, shape: string) => summaries.get(`${v}|${shape}`)!;
  const has = (v: VariantName) => report.variants.includes(v);
  const rps = (r: RoundResult) => r.saturation.deliveriesPerS;
  const cpu = (r: RoundResult) => r.fixed?.serverCpuUsPerDelivery ?? Number.NaN;

  const verdicts: string[] = [];
  const skippedLattice = report.skipped.find((x) => x.variant === 'lattice');
  for (const shape of report.shapes) {
    const id = shape.id;
    if (!has('lattice')) {
      if (has('bare-ws') && has('socketio')) {
        verdicts.push(
          `- Shape ${id}: bare-ws / socketio deliveries/s ${fixed(paired(report.rounds, id, 'bare-ws', 'socketio', rps), 3)}, server CPU per delivery socketio / bare-ws ${fixed(paired(report.rounds, id, 'socketio', 'bare-ws', cpu), 2)}.`,
        );
      }
      continue;
    }
    for (const [other, goal, text] of [
      ['bare-ws', GOALS.ofBare, 'of'],
      ['socketio', GOALS.overSocketIo, 'over'],
    ] as const) {
      if (!has(other)) continue;
      const ratio = paired(report.rounds, id, 'lattice', other, rps);
      const cpuRatio = paired(report.rounds, id, other, 'lattice', cpu);
      const capped = get('lattice', id).cappedByClients && get(other, id).cappedByClients;
      verdicts.push(
        `- Shape ${id}, lattice ${text} ${other} (goal ≥ ${goal}): deliveries/s ${fixed(ratio, 3)} (${ratio >= goal ? 'meets' : 'misses'} it); server CPU per delivery ${other} ÷ lattice ${fixed(cpuRatio, 2)} (${cpuRatio >= goal ? 'meets' : 'misses'} it)${capped ? `: neither was bound by its own CPU (lattice: ${get('lattice', id).boundBy}, ${other}: ${get(other, id).boundBy}), so the CPU figure is the one that compares them` : ''}.`,
      );
    }
  }

  const shapeTables = report.shapes.flatMap((shape) => [
    `**Shape ${SHAPE_TEXT(shape)}** (${(shape.channels * shape.subscribersPerChannel).toLocaleString('en')} connections)`,
    '',
    '| server | deliveries/s (saturation) | server cores | client cores | TCP retransmits | capped by | server CPU µs/delivery (fixed rate) | delivered/s at fixed rate |',
    '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |',
    ...report.variants.map((v) => {
      const x = get(v, shape.id);
      return `| ${v} | ${fixed(x.deliveriesPerS)} | ${fixed(x.serverCores, 2)} | ${fixed(x.clientCores, 2)} | ${fixed(x.retransmits)} | ${x.boundBy} | ${fixed(x.fixedUs, 2)} | ${fixed(x.fixedPerS)}${x.fellBehind ? ' (fell behind)' : ''} |`;
    }),
    '',
  ]);

  const lat = report.latency.find((l) => l.variant === 'lattice') ?? report.latency[0];
  const latencyLines = lat
    ? [
        '| server | subscribers | msg/s | deliveries | p50 ms | p99 ms | max ms | at Redis p50 / p99 ms | TCP retransmits | goal p50 < 15, p99 < 50 |',
        '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
        ...report.latency.map(
          (l) =>
            `| ${l.variant} | ${l.subscribers} | ${l.ratePerS} | ${l.deliveries} | ${fixed(l.p50Ms, 2)} | ${fixed(l.p99Ms, 2)} | ${fixed(l.maxMs, 1)} | ${fixed(l.atRedisP50Ms, 1)} / ${fixed(l.atRedisP99Ms, 1)} | ${l.tcpRetransmits} | ${l.variant !== 'lattice' ? 'reference (floor)' : l.ratePerS !== GOALS.latencyRatePerS || l.subscribers !== GOALS.latencySubscribers ? 'no verdict (not the goal’s rate and subscribers)' : l.p50Ms < GOALS.latencyP50Ms && l.p99Ms < GOALS.latencyP99Ms ? 'meets' : 'misses'} |`,
        ),
      ]
    : [
        'Not measured in this run: no variant offered the HTTP publish hook (the lattice variant, once wired with edge + actors + gateway, does).',
      ];
  const production = s.logLevel === PRODUCTION_LOG_LEVEL;
  const section = [
    START,
    '## Realtime gateway: WebSocket fan-out vs bare ws and Socket.IO',
    '',
    `Measured ${report.date.slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:gateway\` on ${report.cpu}, Node ${report.node} (load average ${report.loadAverage.before.toFixed(1)} before, ${report.loadAverage.after.toFixed(1)} after).`,
    `The servers (each its own process), Redis, the feed and ${s.clientWorkers} load-client processes share those cores. ${s.rounds} round${s.rounds === 1 ? '' : 's'}; in each, every shape runs on every server`,
    `(the servers' order reversed every other round): for the Redis-fed shapes ${s.durationS} s at saturation, then ${s.durationS} s at a fixed ${s.fixedDeliveriesPerS.toLocaleString('en')} deliveries/s; for the publish-path shapes ${s.durationS} s at the shape's rate; each after a 1 s ramp; figures are medians over rounds.`,
    `Settings: \`BENCH_ROUNDS=${s.rounds} BENCH_DURATION_S=${s.durationS} BENCH_FIXED_RATE=${s.fixedDeliveriesPerS} BENCH_WINDOW=${s.windowDeliveries} BENCH_CLIENT_WORKERS=${s.clientWorkers} BENCH_SHAPES=${[...report.shapes, ...report.publishShapes].map((x) => x.id).join(',')} BENCH_SCALE=${s.scale} BENCH_MEMORY_CONNECTIONS=${s.memoryConnections} BENCH_MEMORY_VARIANTS=${s.memoryVariants.join(',')} BENCH_LATENCY_VARIANTS=${s.latencyVariants.join(',')}\`.`,
    ...(s.scale !== 1
      ? [
          '',
          `**Scaled shapes**: BENCH_SCALE=${s.scale} multiplied the subscribers per channel and the publish rates of every shape; the figures are not those of the goals' shapes.`,
        ]
      : []),
    '',
    production
      ? `Production settings: the gateway runs as \`lattice start gateway\` runs it (its ping timers and limits at their defaults), at the production log level (\`${s.logLevel}\`, to a file as \`lattice start\` writes to stderr); so do the edge and the actors behind the HTTP publish hook (the actors' periodic jobs over every product, the edge's key snapshot refresh and change notifications). Differences: the publish quota and per-IP limit raised. bare-ws and Socket.IO log nothing.`
      : `**Not the production log level**: the gateway, the edge and the actors logged at \`${s.logLevel}\` (production: \`${PRODUCTION_LOG_LEVEL}\`); otherwise as \`lattice start\` runs them.`,
    '',
    '- **Feed**: the benchmark publishes on Redis pub/sub; each message carries the same push (`{"push":"message","channel","id","offset","epoch","data","published_at"}`,',
    '  offsets dense from 1 per channel, fresh channels per round and shape). For lattice and bare-ws it is the Lattice fan-out encoding',
    '  (`encodeFanOutMessage`) on `fanOutChannel(prefix, {product, production, channel})`, as channel actors publish it; for Socket.IO the',
    "  idiomatic way to feed a cluster from outside: `@socket.io/redis-emitter`'s `to(channel).emit('message', push)`, one PUBLISH per message.",
    '- **bare-ws**: a `ws` server, one SUBSCRIBE per channel with local clients; per message it parses the fan-out text once, builds the push',
    '  JSON once and sends it to every local socket. No auth, limits or gap checks.',
    '- **socketio**: Socket.IO 4 with `@socket.io/redis-adapter` (websocket transport only); clients join the room named by the channel; the',
    '  adapter receives the emitter packet and broadcasts it to the room, encoding it once.',
    '- **lattice**: the gateway role, clients `auth` then `subscribe` (docs/realtime-protocol.md).',
    `- **Load clients**: raw \`ws\` (bare-ws, lattice) or \`socket.io-client\`, spread over ${s.clientWorkers} processes; every subscriber's offsets are checked`,
    '  (every message once, in order) after each phase, and a phase with anything missing fails the run.',
    `- **Saturation**: publishing as fast as deliveries keep up (at most ${s.windowDeliveries.toLocaleString('en')} deliveries outstanding). **Fixed rate**: the server`,
    "  process's CPU time (utime + stime from `/proc/<pid>/stat`) over the phase's deliveries.",
    `- **Capped by**: \`server\` when the server used ${SERVER_BOUND_CORES} of a core or more at saturation (Node serves on one thread);`,
    `  otherwise \`clients\` when the bench's own processes (server, load clients, feed) kept ${FULL_CORES} cores or more busy (the rest goes`,
    "  to Redis, the kernel's softirqs and other tenants), else `TCP stalls`: cores left idle while receivers' full windows and TCP timers",
    '  (retransmissions counted from `/proc/net/snmp`; on loopback nothing is lost, so each is a timer that fired) held the pipeline.',
    '  Where neither compared server is `server`-bound, the deliveries/s ratio says little (both meet the',
    "  load clients' cap) and the CPU per delivery at the fixed rate is the comparison; both are reported.",
    '',
    ...shapeTables,
    ...(verdicts.length ? ['Ratios (medians of per-round ratios):', '', ...verdicts, ''] : []),
    ...(skippedLattice
      ? [`**lattice: not measured**, its server did not start: \`${skippedLattice.reason}\`.`, '']
      : []),
    ...report.skipped
      .filter((x) => x.variant !== 'lattice')
      .map((x) => `${x.variant}: not measured, its server did not start: \`${x.reason}\`.\n`),
    ...publishPathLines(report.publishShapes, report.publishRounds, s.scale !== 1),
    lat
      ? `### Publish-to-browser latency (HTTP publish at ${lat.ratePerS} msg/s, ${lat.messages / lat.ratePerS} s, ${lat.subscribers.toLocaleString('en')} subscribers)`
      : '### Publish-to-browser latency',
    '',
    ...latencyLines,
    '',
    `### Memory per idle authenticated connection with one subscription (${s.memoryConnections.toLocaleString('en')} connections)`,
    '',
    ...memoryLines(report.memory),
    '',
    'Every round:',
    '',
    '| round | deliveries/s | server cores | client cores | feed cores | TCP retransmits | fixed: delivered/s | fixed: server µs/delivery | fixed: TCP retransmits | connect s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...report.rounds.map(
      (r) =>
        `| ${r.variant} ${r.shape} ${r.round}/${s.rounds} | ${fixed(r.saturation.deliveriesPerS)} | ${fixed(r.saturation.serverCores, 2)} | ${fixed(r.saturation.clientCores, 2)} | ${fixed(r.saturation.feedCores, 2)} | ${r.saturation.tcpRetransmits} | ${fixed(r.fixed?.deliveriesPerS ?? Number.NaN)} | ${fixed(cpu(r), 2)} | ${r.fixed?.tcpRetransmits ?? '—'} | ${fixed(r.connectMs / 1000, 1)} |`,
    ),
    '',
    ...publishPathRoundRows(report.publishRounds, s.rounds),
    '![deliveries per second and server CPU per delivery](benchmarks-gateway.svg)',
    END,
  ].join('\n');

  let preview = '';
  if (write) {
    writeBenchmarkSection(START, END, section);
    writeFileSync(SVG, svgOf(report, summaries));
  } else preview = previewBenchmarkSection('gateway', section);
  return [
    ...report.shapes.flatMap((shape) =>
      report.variants.map((v) => {
        const x = get(v, shape.id);
        return `${v.padEnd(8)} ${shape.id}: ${fixed(x.deliveriesPerS).padStart(7)} deliveries/s (${x.boundBy}-bound, server ${fixed(x.serverCores, 2)} cores, ${fixed(x.retransmits)} TCP retransmits)  fixed: ${fixed(x.fixedUs, 2)} µs/delivery`;
      }),
    ),
    ...verdicts,
    ...report.publishShapes.map(
      (p) =>
        `publish path ${p.id}: lattice / bare-ws deliveries/s ${fixed(publishPathRatio(report.publishRounds, p.id), 3)} (goal >= ${GOALS.ofBare})`,
    ),
    ...report.memory.map((m) => {
      const f = memoryFigures(m);
      return `memory ${m.variant}: ${fixed(f.rss, 1)} KiB/connection by RSS delta, ${fixed(f.live, 1)} KiB live heap + external (garbage ${fixed(f.garbage, 1)}, heap reserve ${fixed(f.reserve, 1)}, outside V8 ${fixed(f.outside, 1)})`;
    }),
    ...(skippedLattice ? [`lattice skipped: ${skippedLattice.reason}`] : []),
    write
      ? 'written to docs/benchmarks.md and docs/benchmarks-gateway.svg'
      : `not written (BENCH_WRITE=0); the section is in ${preview}`,
  ];
}
