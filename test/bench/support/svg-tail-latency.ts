// A latency distribution panel of the benchmarks' hand-drawn plots: the share of samples within
// each latency (x: ms up to a little past the p99.9, y: 0, 50%, 90%, 99%, 99.9%, the tail at equal
// steps), the p50 and p99 marked, and the p99 target as a dashed line.
import { gridLines } from './svg-grid-lines.ts';

export interface TailLatencyPanel {
  x0: number;
  y0: number;
  w: number;
  h: number;
  /** Above the panel. */
  title: string;
  /** Under the x axis: what was timed. */
  axisLabel: string;
  color: string;
  /** Every sample (ms), ascending, and its figures. */
  latency: { sorted: number[]; p50Ms: number; p99Ms: number; p999Ms: number; maxMs: number };
  targetP99Ms: number;
  /** The target line's label: right of the line near its top, or left of it near its bottom. */
  targetLabel: { text: string; at: 'top' | 'bottom' };
  /** About this many points on the curve (and the last 20 samples); every sample when absent. */
  points?: number;
}

/** The vertical scale: 0 at the bottom, then 90%, 99%, 99.9% at equal steps. */
const TAIL_STEPS = 3;
const tailOf = (share: number) => Math.min(TAIL_STEPS, -Math.log10(Math.max(1 - share, 10 ** -TAIL_STEPS)));
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

export function tailLatencyPanel(p: TailLatencyPanel): string[] {
  const { x0, y0, w, h, latency: l } = p;
  const maxMs = Math.max(p.targetP99Ms * 1.25, Math.min(l.maxMs, l.p999Ms * 1.2));
  const x = (ms: number) => x0 + (Math.min(ms, maxMs) / maxMs) * w;
  const y = (share: number) => y0 + h - (tailOf(share) / TAIL_STEPS) * h;
  const out = [`<text x="${x0}" y="${y0 - 12}" font-size="12">${p.title}</text>`];
  const shares = [
    [0, '0%'],
    [0.5, '50%'],
    [0.9, '90%'],
    [0.99, '99%'],
    [0.999, '99.9%'],
  ] as const;
  out.push(
    ...gridLines(
      x0,
      w,
      shares.map(([share, text]) => ({ y: y(share), text })),
    ),
  );
  const n = l.sorted.length;
  const step = p.points === undefined ? 1 : Math.max(1, Math.floor(n / p.points));
  const points: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % step !== 0 && i < n - 20) continue;
    points.push(`${x(l.sorted[i]!).toFixed(1)},${y((i + 1) / n).toFixed(1)}`);
  }
  const tx = x(p.targetP99Ms);
  out.push(
    `<polyline fill="none" stroke="${p.color}" stroke-width="1.8" points="${points.join(' ')}"/>`,
    `<line x1="${tx.toFixed(1)}" x2="${tx.toFixed(1)}" y1="${y0}" y2="${y0 + h}" stroke="#c92a2a" stroke-dasharray="4 3"/>`,
    p.targetLabel.at === 'top'
      ? `<text x="${(tx + 4).toFixed(1)}" y="${y0 + 24}" font-size="10" fill="#c92a2a">${p.targetLabel.text}</text>`
      : `<text x="${(tx - 4).toFixed(1)}" y="${y0 + h - 8}" text-anchor="end" font-size="10" fill="#c92a2a">${p.targetLabel.text}</text>`,
    `<circle cx="${x(l.p99Ms).toFixed(1)}" cy="${y(0.99).toFixed(1)}" r="3" fill="${p.color}"/>`,
    `<text x="${(x(l.p99Ms) + 6).toFixed(1)}" y="${(y(0.99) + 12).toFixed(1)}" font-size="10">p99 ${fixed(l.p99Ms, 1)} ms</text>`,
    `<circle cx="${x(l.p50Ms).toFixed(1)}" cy="${y(0.5).toFixed(1)}" r="3" fill="${p.color}"/>`,
    `<text x="${(x(l.p50Ms) + 6).toFixed(1)}" y="${(y(0.5) + 12).toFixed(1)}" font-size="10">p50 ${fixed(l.p50Ms, 1)} ms</text>`,
  );
  for (const f of [0, 0.25, 0.5, 0.75, 1])
    out.push(
      `<text x="${x(maxMs * f).toFixed(1)}" y="${y0 + h + 14}" text-anchor="middle" font-size="10">${fixed(maxMs * f, 0)}</text>`,
    );
  out.push(
    `<text x="${x0 + w / 2}" y="${y0 + h + 28}" text-anchor="middle" font-size="10">${p.axisLabel}</text>`,
  );
  return out;
}
