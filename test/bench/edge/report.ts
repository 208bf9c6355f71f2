// The edge benchmark's report: a section of docs/benchmarks.md (between markers, so other
// benchmarks can share the page) with the table, an ASCII chart, and an SVG of throughput per
// second written beside it.
import { readFileSync, writeFileSync } from 'node:fs';

export interface RoundResult {
  label: string;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuUsPerRequest: number;
  redisCpuUsPerRequest: number;
  perSecond: number[];
}

export interface BenchReport {
  date: string;
  node: string;
  cpu: string;
  settings: { durationS: number; rounds: number; connections: number; keys: number };
  snapshotKeys: number;
  snapshotLoadMs: number;
  rounds: RoundResult[];
}

const DOC = new URL('../../../docs/benchmarks.md', import.meta.url);
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
  };
}

function asciiBars(rows: Array<[string, number, string]>, width = 50): string[] {
  const max = Math.max(...rows.map(([, v]) => v));
  return rows.map(
    ([label, value, text]) =>
      `${label.padEnd(10)} ${'█'.repeat(Math.round((value / max) * width)).padEnd(width)} ${text}`,
  );
}

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
    const color = s.label.startsWith('edge-local')
      ? '#2f9e44'
      : s.label.startsWith('edge')
        ? '#d9480f'
        : '#1c7ed6';
    const points = s.perSecond.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    return `<polyline fill="none" stroke="${color}" stroke-width="1.5" opacity="0.8" points="${points}"/>`;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = max * f;
    return `<line x1="${pad.l}" x2="${w - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${pad.l - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">${fixed(v)}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="${pad.l}" y="18" font-size="13">Requests per second, each second of each round (blue: bare, orange: edge, green: edge-local)</text>`,
    ...ticks,
    ...lines,
    `<text x="${w / 2}" y="${h - 8}" text-anchor="middle" font-size="11">seconds into the round</text>`,
    '</svg>',
    '',
  ].join('\n');
}

/** Writes the report (when `write`) and returns the summary lines for the console. */
export function writeReport(report: BenchReport, write: boolean): string[] {
  const measured = report.rounds.filter((r) => !r.label.startsWith('warmup'));
  const bare = summaryOf(measured.filter((r) => r.label.startsWith('bare')));
  const edge = summaryOf(measured.filter((r) => r.label.startsWith('edge ')));
  const local = summaryOf(measured.filter((r) => r.label.startsWith('edge-local ')));
  const ratio = edge.rps / bare.rps;
  const verdict = ratio >= TARGET_RATIO ? 'meets' : 'misses';
  const s = report.settings;

  const section = [
    START,
    '## Public edge: full key pipeline vs bare express',
    '',
    `Measured ${report.date.slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:edge\` on ${report.cpu}, Node ${report.node}.`,
    `The load generator (autocannon, ${s.connections} connections, no pipelining), both servers and`,
    'Redis share those cores. Each server is its own child process; rounds alternate bare / edge',
    `(${s.rounds} × ${s.durationS} s each after a warm-up); figures are medians over rounds.`,
    '',
    `- **edge**: \`startEdge\` as \`lattice start edge\` runs it, answering \`GET /{product}/mail/emails/{id}\` with`,
    '  `Authorization: Bearer lpk_…`: per-IP limit counted in Redis (fixed-window Lua script, limit too high to',
    `  reject, one pipelined round trip per event-loop turn), route match, key check against a PostgreSQL snapshot of`,
    `  ${report.snapshotKeys.toLocaleString('en')} keys (loaded in ${report.snapshotLoadMs} ms), header stripping, metrics, then a trivial handler.`,
    '- **bare**: the same express version and trivial handler on the same path, none of the checks.',
    '- **edge-local** (breakdown only, not a deployable setup): the edge with the per-IP limit counted in',
    '  process memory instead of Redis, to show what the Redis round trip costs.',
    '',
    '| variant | req/s | p50 ms | p99 ms | server CPU µs/req | Redis CPU µs/req |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    `| bare | ${fixed(bare.rps)} | ${fixed(bare.p50Ms, 2)} | ${fixed(bare.p99Ms, 2)} | ${fixed(bare.serverCpuUs, 1)} | — |`,
    `| edge | ${fixed(edge.rps)} | ${fixed(edge.p50Ms, 2)} | ${fixed(edge.p99Ms, 2)} | ${fixed(edge.serverCpuUs, 1)} | ${fixed(edge.redisCpuUs, 1)} |`,
    `| edge-local | ${fixed(local.rps)} | ${fixed(local.p50Ms, 2)} | ${fixed(local.p99Ms, 2)} | ${fixed(local.serverCpuUs, 1)} | — |`,
    '',
    `**Throughput ratio edge / bare: ${fixed(ratio, 3)}** (target ≥ ${TARGET_RATIO}: ${verdict} it).`,
    '',
    'Every round:',
    '',
    '| round | req/s | p50 ms | p99 ms | server CPU µs/req |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...measured.map(
      (r) =>
        `| ${r.label} | ${fixed(r.rps)} | ${fixed(r.p50Ms, 2)} | ${fixed(r.p99Ms, 2)} | ${fixed(r.serverCpuUsPerRequest, 1)} |`,
    ),
    '',
    '```',
    'req/s (median)',
    ...asciiBars([
      ['bare', bare.rps, fixed(bare.rps)],
      ['edge', edge.rps, fixed(edge.rps)],
      ['edge-local', local.rps, fixed(local.rps)],
    ]),
    'p99 latency (median)',
    ...asciiBars([
      ['bare', bare.p99Ms, `${fixed(bare.p99Ms, 2)} ms`],
      ['edge', edge.p99Ms, `${fixed(edge.p99Ms, 2)} ms`],
      ['edge-local', local.p99Ms, `${fixed(local.p99Ms, 2)} ms`],
    ]),
    'server CPU per request (median)',
    ...asciiBars([
      ['bare', bare.serverCpuUs, `${fixed(bare.serverCpuUs, 1)} µs`],
      [
        'edge',
        edge.serverCpuUs,
        `${fixed(edge.serverCpuUs, 1)} µs (+ ${fixed(edge.redisCpuUs, 1)} µs in Redis)`,
      ],
      ['edge-local', local.serverCpuUs, `${fixed(local.serverCpuUs, 1)} µs`],
    ]),
    '```',
    '',
    '![requests per second over each round](benchmarks-edge.svg)',
    END,
  ].join('\n');

  if (write) {
    let doc: string;
    try {
      doc = readFileSync(DOC, 'utf8');
    } catch {
      doc =
        '# Benchmarks\n\nMeasured on the project machine; each section names the command that produced it.\n\n';
    }
    const at = doc.indexOf(START);
    const end = doc.indexOf(END);
    doc =
      at >= 0 && end > at
        ? doc.slice(0, at) + section + doc.slice(end + END.length)
        : `${doc.trimEnd()}\n\n${section}\n`;
    writeFileSync(DOC, doc);
    writeFileSync(SVG, svgOf(report));
  }
  return [
    `bare  ${fixed(bare.rps)} req/s  p50 ${fixed(bare.p50Ms, 2)} ms  p99 ${fixed(bare.p99Ms, 2)} ms  server ${fixed(bare.serverCpuUs, 1)} µs/req`,
    `edge  ${fixed(edge.rps)} req/s  p50 ${fixed(edge.p50Ms, 2)} ms  p99 ${fixed(edge.p99Ms, 2)} ms  server ${fixed(edge.serverCpuUs, 1)} µs/req  redis ${fixed(edge.redisCpuUs, 1)} µs/req`,
    `edge-local  ${fixed(local.rps)} req/s  p50 ${fixed(local.p50Ms, 2)} ms  p99 ${fixed(local.p99Ms, 2)} ms  server ${fixed(local.serverCpuUs, 1)} µs/req`,
    `ratio edge/bare ${fixed(ratio, 3)} (target ${TARGET_RATIO}: ${verdict})${write ? '; written to docs/benchmarks.md' : ''}`,
  ];
}
