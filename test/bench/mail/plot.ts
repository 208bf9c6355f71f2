// docs/benchmarks-mail.svg, drawn by hand: received messages per second over each round, and the
// accept latency distribution.
import { svgDocument } from '../support/svg-bars.ts';
import { gridLines } from '../support/svg-grid-lines.ts';
import { tailLatencyPanel } from '../support/svg-tail-latency.ts';
import { type BenchResult, fixed, TARGET_P99_MS } from './report.ts';

const COLORS = { platform: '#d9480f', bare: '#1c7ed6' } as const;

function throughputPanel(r: BenchResult, x0: number, y0: number, w: number, h: number): string[] {
  const series = r.rounds;
  const max = Math.max(1, ...series.flatMap((s) => s.perSecondSeries)) * 1.1;
  const seconds = Math.max(2, ...series.map((s) => s.perSecondSeries.length));
  const x = (i: number) => x0 + (i / (seconds - 1)) * w;
  const y = (v: number) => y0 + h - (v / max) * h;
  const out = [
    `<text x="${x0}" y="${y0 - 12}" font-size="12">Messages received by the smart host, each second of each round</text>`,
  ];
  out.push(
    ...gridLines(
      x0,
      w,
      [0, 0.25, 0.5, 0.75, 1].map((f) => ({ y: y(max * f), text: fixed(max * f) })),
    ),
  );
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

export function svgOf(r: BenchResult): string {
  const h = 330;
  return svgDocument(
    780,
    h,
    'Mail benchmark: messages received per second by arm, and accept latency at a fixed rate',
    [
      ...throughputPanel(r, 50, 40, 320, 220),
      ...tailLatencyPanel({
        x0: 460,
        y0: 40,
        w: 300,
        h: 220,
        title: `Accept latency at ${r.latency.rate} sends/s: share answered within`,
        axisLabel: 'ms (just before the request → answer end)',
        color: COLORS.platform,
        latency: r.latency,
        targetP99Ms: TARGET_P99_MS,
        targetLabel: { text: `p99 target ${TARGET_P99_MS} ms`, at: 'top' },
      }),
      `<rect x="50" y="${h - 22}" width="10" height="10" fill="${COLORS.platform}"/><text x="64" y="${h - 13}" font-size="11">platform (management → Kafka → actors → smart host)</text>`,
      `<rect x="400" y="${h - 22}" width="10" height="10" fill="${COLORS.bare}"/><text x="414" y="${h - 13}" font-size="11">bare pooled nodemailer</text>`,
    ],
  );
}
