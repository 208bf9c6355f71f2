// docs/benchmarks-mail.svg, drawn by hand: received messages per second over each round, and the
// accept latency distribution.
import type { BenchResult } from './report.ts';
import { TARGET_P99_MS } from './report.ts';

const COLORS = { platform: '#d9480f', bare: '#1c7ed6' } as const;
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

function throughputPanel(r: BenchResult, x0: number, y0: number, w: number, h: number): string[] {
  const series = r.rounds;
  const max = Math.max(1, ...series.flatMap((s) => s.perSecondSeries)) * 1.1;
  const seconds = Math.max(2, ...series.map((s) => s.perSecondSeries.length));
  const x = (i: number) => x0 + (i / (seconds - 1)) * w;
  const y = (v: number) => y0 + h - (v / max) * h;
  const out = [
    `<text x="${x0}" y="${y0 - 12}" font-size="12">Messages received by the smart host, each second of each round</text>`,
  ];
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const v = max * f;
    out.push(
      `<line x1="${x0}" x2="${x0 + w}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#ddd"/>`,
      `<text x="${x0 - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="10">${fixed(v)}</text>`,
    );
  }
  for (const s of series) {
    // The last second is partial: it would draw a drop that is not there.
    const full = s.perSecondSeries.length > 1 ? s.perSecondSeries.slice(0, -1) : s.perSecondSeries;
    const points = full.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    out.push(
      `<polyline fill="none" stroke="${COLORS[s.arm]}" stroke-width="1.5" opacity="0.8" points="${points}"/>`,
    );
  }
  const step = Math.max(1, Math.ceil(seconds / 8));
  for (let t = 0; t < seconds; t += step)
    out.push(
      `<text x="${x(t).toFixed(1)}" y="${y0 + h + 14}" text-anchor="middle" font-size="10">${t}</text>`,
    );
  out.push(
    `<text x="${x0 + w / 2}" y="${y0 + h + 28}" text-anchor="middle" font-size="10">seconds into the round</text>`,
  );
  return out;
}

/** The latency panel's vertical scale: 0 at the bottom, then 90%, 99%, 99.9% at equal steps. */
const TAIL_STEPS = 3;
const tailOf = (share: number) => Math.min(TAIL_STEPS, -Math.log10(Math.max(1 - share, 10 ** -TAIL_STEPS)));

function latencyPanel(r: BenchResult, x0: number, y0: number, w: number, h: number): string[] {
  const l = r.latency;
  const maxMs = Math.max(TARGET_P99_MS * 1.25, Math.min(l.maxMs, l.p999Ms * 1.2));
  const x = (ms: number) => x0 + (Math.min(ms, maxMs) / maxMs) * w;
  const y = (share: number) => y0 + h - (tailOf(share) / TAIL_STEPS) * h;
  const out = [
    `<text x="${x0}" y="${y0 - 12}" font-size="12">Accept latency at ${l.rate} sends/s: share answered within</text>`,
  ];
  for (const [share, text] of [
    [0, '0%'],
    [0.5, '50%'],
    [0.9, '90%'],
    [0.99, '99%'],
    [0.999, '99.9%'],
  ] as const) {
    out.push(
      `<line x1="${x0}" x2="${x0 + w}" y1="${y(share).toFixed(1)}" y2="${y(share).toFixed(1)}" stroke="#ddd"/>`,
      `<text x="${x0 - 6}" y="${(y(share) + 4).toFixed(1)}" text-anchor="end" font-size="10">${text}</text>`,
    );
  }
  const n = l.sorted.length;
  const points = l.sorted.map((ms, i) => `${x(ms).toFixed(1)},${y((i + 1) / n).toFixed(1)}`);
  const tx = x(TARGET_P99_MS);
  out.push(
    `<polyline fill="none" stroke="${COLORS.platform}" stroke-width="1.8" points="${points.join(' ')}"/>`,
    `<line x1="${tx.toFixed(1)}" x2="${tx.toFixed(1)}" y1="${y0}" y2="${y0 + h}" stroke="#c92a2a" stroke-dasharray="4 3"/>`,
    `<text x="${(tx + 4).toFixed(1)}" y="${y0 + 24}" font-size="10" fill="#c92a2a">p99 target ${TARGET_P99_MS} ms</text>`,
    `<circle cx="${x(l.p99Ms).toFixed(1)}" cy="${y(0.99).toFixed(1)}" r="3" fill="${COLORS.platform}"/>`,
    `<text x="${(x(l.p99Ms) + 6).toFixed(1)}" y="${(y(0.99) + 12).toFixed(1)}" font-size="10">p99 ${fixed(l.p99Ms, 1)} ms</text>`,
    `<circle cx="${x(l.p50Ms).toFixed(1)}" cy="${y(0.5).toFixed(1)}" r="3" fill="${COLORS.platform}"/>`,
    `<text x="${(x(l.p50Ms) + 6).toFixed(1)}" y="${(y(0.5) + 12).toFixed(1)}" font-size="10">p50 ${fixed(l.p50Ms, 1)} ms</text>`,
  );
  for (const f of [0, 0.25, 0.5, 0.75, 1])
    out.push(
      `<text x="${x(maxMs * f).toFixed(1)}" y="${y0 + h + 14}" text-anchor="middle" font-size="10">${fixed(maxMs * f, 0)}</text>`,
    );
  out.push(
    `<text x="${x0 + w / 2}" y="${y0 + h + 28}" text-anchor="middle" font-size="10">ms (just before the request → answer end)</text>`,
  );
  return out;
}

export function svgOf(r: BenchResult): string {
  const w = 780;
  const h = 330;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">`,
    '<title>Mail benchmark: messages received per second by arm, and accept latency at a fixed rate</title>',
    '<rect width="100%" height="100%" fill="white"/>',
    ...throughputPanel(r, 50, 40, 320, 220),
    ...latencyPanel(r, 460, 40, 300, 220),
    `<rect x="50" y="${h - 22}" width="10" height="10" fill="${COLORS.platform}"/><text x="64" y="${h - 13}" font-size="11">platform (management → Kafka → actors → smart host)</text>`,
    `<rect x="400" y="${h - 22}" width="10" height="10" fill="${COLORS.bare}"/><text x="414" y="${h - 13}" font-size="11">bare pooled nodemailer</text>`,
    '</svg>',
    '',
  ].join('\n');
}
