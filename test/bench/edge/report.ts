// The edge benchmark's report: a section of docs/benchmarks.md (between markers, so other
// benchmarks can share the page) with the table, an ASCII chart, and an SVG of throughput per
// second written beside it. Every figure and verdict in it is computed from the run's rounds.
import { writeFileSync } from 'node:fs';
import { previewBenchmarkSection, writeBenchmarkSection } from '../support/doc-section.ts';
import { PRODUCTION_LOG_LEVEL } from '../support/platform-log.ts';

export interface RoundResult {
  label: string;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuUsPerRequest: number;
  redisCpuUsPerRequest: number;
  /** Bytes the server logged per request (its request log lines). */
  logBytesPerRequest: number;
  perSecond: number[];
}

export interface BenchReport {
  date: string;
  node: string;
  cpu: string;
  settings: { durationS: number; rounds: number; connections: number; keys: number; logLevel: string };
  snapshotKeys: number;
  snapshotLoadMs: number;
  rounds: RoundResult[];
}

const SVG = new URL('../../../docs/benchmarks-edge.svg', import.meta.url);
const START = '<!-- bench:edge:start -->';
const END = '<!-- bench:edge:end -->';
export const TARGET_RATIO = 0.85;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const fixed = (n: number, digits = 0) => n.toFixed(digits);

function summaryOf(rounds: RoundResult[]) {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    serverCpuUs: median(rounds.map((r) => r.serverCpuUsPerRequest)),
    redisCpuUs: median(rounds.map((r) => r.redisCpuUsPerRequest)),
    logBytes: median(rounds.map((r) => r.logBytesPerRequest)),
  };
}

function asciiBars(rows: Array<[string, number, string]>, width = 50): string[] {
  const max = Math.max(...rows.map(([, v]) => v));
  return rows.map(
    ([label, value, text]) =>
      `${label.padEnd(21)} ${'█'.repeat(Math.round((value / max) * width)).padEnd(width)} ${text}`,
  );
}

const COLORS: Record<string, string> = {
  bare: '#1c7ed6',
  edge: '#d9480f',
  'edge-spread': '#ae3ec9',
  'edge-local': '#2f9e44',
  'edge-warn': '#f59f00',
  'edge (before)': '#d9480f',
  'edge-spread (before)': '#ae3ec9',
};

function svgOf(report: BenchReport): string {
  const w = 720;
  const h = 300;
  const pad = { l: 60, r: 20, t: 30, b: 40 };
  const series = report.rounds.filter((r) => !r.label.startsWith('warmup'));
  const max = Math.max(...series.flatMap((s) => s.perSecond)) * 1.1;
  const seconds = Math.max(...series.map((s) => s.perSecond.length));
  const x = (i: number) => pad.l + (i / Math.max(1, seconds - 1)) * (w - pad.l - pad.r);
  const y = (v: number) => h - pad.b - (v / max) * (h - pad.t - pad.b);
  const lines = series.map((s) => {
    const variant = variantOf(s.label);
    const color = COLORS[variant] ?? '#868e96';
    const dash = variant.endsWith('(before)') ? ' stroke-dasharray="4 3"' : '';
    const points = s.perSecond.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    return `<polyline fill="none" stroke="${color}"${dash} stroke-width="1.5" opacity="0.8" points="${points}"/>`;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = max * f;
    return `<line x1="${pad.l}" x2="${w - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${pad.l - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">${fixed(v)}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">`,
    '<title>Edge benchmark: requests per second over each round, by variant</title>',
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="${pad.l}" y="18" font-size="13">Requests per second, each second of each round (blue: bare, orange: edge, purple: edge-spread, green: edge-local, yellow: edge-warn; dashed: before)</text>`,
    ...ticks,
    ...lines,
    `<text x="${w / 2}" y="${h - 8}" text-anchor="middle" font-size="11">seconds into the round</text>`,
    '</svg>',
    '',
  ].join('\n');
}

/** `edge 2/3` → `edge`; `edge (before) 2/3` → `edge (before)`. */
const variantOf = (label: string) => label.replace(/ \d+\/\d+$/, '');

/** Writes the report (when `write`) and returns the summary lines for the console. */
export function writeReport(report: BenchReport, write: boolean): string[] {
  const measured = report.rounds.filter((r) => !r.label.startsWith('warmup'));
  const names = [...new Set(measured.map((r) => variantOf(r.label)))];
  const roundsOf = (name: string) => measured.filter((r) => variantOf(r.label) === name);
  const summaries = new Map(names.map((name) => [name, summaryOf(roundsOf(name))]));
  const get = (name: string) => summaries.get(name);
  const bare = get('bare')!;
  // Each round of a variant against the bare round of the same cycle: drift hits both alike.
  const pairedRatio = (name: string) =>
    median(roundsOf(name).map((r, i) => r.rps / (roundsOf('bare')[i]?.rps ?? Number.NaN)));
  // The headline is the median of the per-round ratios, not the ratio of the medians: on two
  // shared cores single rounds swing by a fifth, and a slow bare round paired with a fast edge
  // round from another cycle would flatter the edge (or the reverse).
  const ratio = pairedRatio('edge');
  const verdict = ratio >= TARGET_RATIO ? 'meets' : 'misses';
  const s = report.settings;
  const hasBefore = names.some((n) => n.endsWith('(before)'));
  const redisCell = (name: string) =>
    name === 'bare' || name === 'edge-local' ? '—' : fixed(get(name)!.redisCpuUs, 1);
  const logCell = (name: string) => (name === 'bare' ? '—' : fixed(get(name)!.logBytes));
  const production = s.logLevel === PRODUCTION_LOG_LEVEL;
  const warn = get('edge-warn');
  const edge = get('edge');
  const ratioLines = names
    .filter((n) => n !== 'bare')
    .map(
      (n) =>
        `| ${n} | ${fixed(get(n)!.rps / bare.rps, 3)} | ${fixed(pairedRatio(n), 3)} | ${fixed(get(n)!.serverCpuUs - bare.serverCpuUs, 1)} |`,
    );

  const section = [
    START,
    '## Public edge: full key pipeline vs bare express',
    '',
    `Measured ${report.date.slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:edge\` on ${report.cpu}, Node ${report.node}.`,
    `The load generator (autocannon, ${s.connections} connections, no pipelining), the servers and`,
    `Redis share those cores. Each server is its own child process; every round runs each variant once`,
    '(edge-spread first, then the other breakdown rows, then the headline pair bare and edge back to back),',
    `and every other round in the reverse order (${s.rounds} × ${s.durationS} s each after a warm-up); figures are medians over rounds.`,
    '',
    `- **edge**: the edge role as \`lattice start edge\` runs it, answering \`GET /{product}/mail/emails/{id}\` with`,
    '  `Authorization: Bearer lpk_…` from one client address over keep-alive connections: per-IP limit shared',
    '  through Redis by quota leasing (limit too high to reject, so every lease is the largest, 1024 units: one',
    '  Redis round trip per 1024 requests), route match, key headers taken out, key check against a PostgreSQL',
    `  snapshot of ${report.snapshotKeys.toLocaleString('en')} keys (loaded in ${report.snapshotLoadMs} ms, reloaded every 30 s; the key found is`,
    '  kept per connection and snapshot, so a connection hashes its key once), RateLimit fields, metrics, then a',
    '  trivial handler.',
    '- **bare**: the same express version and trivial handler on the same path, none of the checks.',
    '- **edge-spread** (breakdown): the edge with the real limit (100 per minute) behind a trusted proxy, every',
    "  request naming a new client address in `X-Forwarded-For`: each is its address's first in the window and",
    '  needs its own lease from Redis, the worst case for leasing (round trips still pipelined per event-loop',
    '  turn). Its load generator rebuilds every request, which costs it a few µs more per request.',
    '- **edge-local** (breakdown only, not a deployable setup): the edge with the per-IP limit counted in',
    '  process memory instead of Redis.',
    '- **edge-warn** (breakdown): the edge at `LOG_LEVEL=warn`, without its request log lines: what the',
    '  production log level costs.',
    ...(hasBefore
      ? [
          '- **… (before)**: the same variants served by an earlier version of the edge, run from a checkout of it',
          '  (`BENCH_BASELINE_DIR`) in the same alternating rounds.',
        ]
      : []),
    '',
    production
      ? `Production settings: the edges run as \`lattice start edge\` runs them (key snapshot refresh at its configured period, key change notifications), at the production log level (\`${s.logLevel}\`: one line per request, written to a file as \`lattice start\` writes to stderr), but for edge-warn; differences: the limits named above and, for edge-local, the limiter. Bare express logs nothing.`
      : `**Not the production log level**: the edges logged at \`${s.logLevel}\` (BENCH_LOG_LEVEL; production: \`${PRODUCTION_LOG_LEVEL}\`, one line per request); otherwise as \`lattice start edge\` runs them.`,
    '',
    '| variant | req/s | p50 ms | p99 ms | server CPU µs/req | Redis CPU µs/req | log bytes/req |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...names.map((n) => {
      const v = get(n)!;
      return `| ${n} | ${fixed(v.rps)} | ${fixed(v.p50Ms, 2)} | ${fixed(v.p99Ms, 2)} | ${fixed(v.serverCpuUs, 1)} | ${redisCell(n)} | ${logCell(n)} |`;
    }),
    '',
    `**Throughput ratio edge / bare: ${fixed(ratio, 3)}**, the median of the ${s.rounds} per-round ratios (each edge round against the bare round of its cycle; target ≥ ${TARGET_RATIO}: **${verdict} it**).`,
    ...(warn && edge
      ? [
          '',
          `The request log line: edge-warn's median of per-round ratios is ${fixed(pairedRatio('edge-warn'), 3)}, and the edge spends ${fixed(edge.serverCpuUs - warn.serverCpuUs, 1)} µs of server CPU per request more than edge-warn (medians; ${fixed(edge.logBytes)} bytes logged per request).`,
        ]
      : []),
    '',
    '| variant | req/s ÷ bare (medians) | median of per-round ratios | server CPU µs/req over bare |',
    '| --- | ---: | ---: | ---: |',
    ...ratioLines,
    '',
    "Redis CPU is the Redis server's whole CPU over a round divided by the round's requests, other clients",
    'of the same Redis included.',
    '',
    'Every round:',
    '',
    '| round | req/s | p50 ms | p99 ms | server CPU µs/req | Redis CPU µs/req |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...measured.map(
      (r) =>
        `| ${r.label} | ${fixed(r.rps)} | ${fixed(r.p50Ms, 2)} | ${fixed(r.p99Ms, 2)} | ${fixed(r.serverCpuUsPerRequest, 1)} | ${fixed(r.redisCpuUsPerRequest, 1)} |`,
    ),
    '',
    '```',
    'req/s (median)',
    ...asciiBars(names.map((n) => [n, get(n)!.rps, fixed(get(n)!.rps)])),
    'p99 latency (median)',
    ...asciiBars(names.map((n) => [n, get(n)!.p99Ms, `${fixed(get(n)!.p99Ms, 2)} ms`])),
    'server CPU per request (median)',
    ...asciiBars(
      names.map((n) => [
        n,
        get(n)!.serverCpuUs,
        `${fixed(get(n)!.serverCpuUs, 1)} µs${redisCell(n) === '—' ? '' : ` (+ ${redisCell(n)} µs in Redis)`}`,
      ]),
    ),
    '```',
    '',
    '![requests per second over each round](benchmarks-edge.svg)',
    END,
  ].join('\n');

  let preview = '';
  if (write) {
    writeBenchmarkSection(START, END, section);
    writeFileSync(SVG, svgOf(report));
  } else preview = previewBenchmarkSection('edge', section);
  return [
    ...names.map((n) => {
      const v = get(n)!;
      return `${n.padEnd(21)} ${fixed(v.rps).padStart(6)} req/s  p50 ${fixed(v.p50Ms, 2)} ms  p99 ${fixed(v.p99Ms, 2)} ms  server ${fixed(v.serverCpuUs, 1)} µs/req  redis ${fixed(v.redisCpuUs, 1)} µs/req`;
    }),
    ...names
      .filter((n) => n !== 'bare')
      .map((n) => `ratio ${n}/bare ${fixed(get(n)!.rps / bare.rps, 3)}, paired ${fixed(pairedRatio(n), 3)}`),
    `target ${TARGET_RATIO}: ${verdict}${write ? '; written to docs/benchmarks.md' : `; section not written (BENCH_WRITE=0), see ${preview}`}`,
  ];
}
