// docs/benchmarks-latency.svg: p50 and p99 publish → subscriber latency (medians over rounds),
// one panel each, grouped by rate with one bar per arm.
import { type BarGroup, groupedBars, legend, svgDocument } from '../support/svg-bars.ts';
import type { ArmName } from './arm.ts';
import type { Summary } from './summary.ts';

const COLORS: Record<ArmName, string> = {
  'lattice-apart': '#d9480f',
  'lattice-one': '#f59f00',
  'bare-pipeline': '#1c7ed6',
};

export function latencySvg(arms: ArmName[], rates: number[], rows: Summary[]): string {
  const w = 800;
  const h = 330;
  const groups = (figure: (s: Summary) => number): BarGroup[] =>
    rates.map((rate) => ({
      label: `${rate.toLocaleString('en')} msg/s`,
      bars: arms.map((arm) => {
        const s = rows.find((x) => x.arm === arm && x.ratePerS === rate);
        const value = s ? figure(s) : Number.NaN;
        return { series: arm, value, text: Number.isFinite(value) ? value.toFixed(1) : '—' };
      }),
    }));
  return svgDocument(w, h, 'Latency benchmark: p50 and p99 publish → subscriber latency per arm and rate', [
    ...groupedBars({
      title: 'p50 latency, ms (median over rounds)',
      x0: 45,
      y0: 40,
      w: 330,
      h: 220,
      groups: groups((s) => s.p50Ms),
      colors: COLORS,
    }),
    ...groupedBars({
      title: 'p99 latency, ms (median over rounds)',
      x0: 450,
      y0: 40,
      w: 330,
      h: 220,
      groups: groups((s) => s.p99Ms),
      colors: COLORS,
    }),
    ...legend(arms, COLORS, 45, h - 12),
  ]);
}
