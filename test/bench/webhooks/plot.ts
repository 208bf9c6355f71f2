// docs/benchmarks-webhooks.svg, drawn by hand: the event-to-first-attempt distribution, and each
// round's deliveries a second by arm.
import { svgDocument } from '../support/svg-bars.ts';
import { gridLines } from '../support/svg-grid-lines.ts';
import { tailLatencyPanel } from '../support/svg-tail-latency.ts';
import { type BenchResult, fixed, median, type Round, TARGET_P99_MS, TARGET_RATIO } from './report.ts';

const COLORS = { platform: '#d9480f', bare: '#1c7ed6' } as const;

function throughputPanel(r: BenchResult, x0: number, y0: number, w: number, h: number): string[] {
  const cycles = r.settings.rounds;
  const of = (arm: Round['arm']) => r.rounds.filter((x) => x.arm === arm);
  const platform = of('platform');
  const bare = of('bare');
  const max = Math.max(1, ...r.rounds.map((x) => x.perSecond)) * 1.15;
  const y = (v: number) => y0 + h - (v / max) * h;
  const slot = w / cycles;
  const bar = Math.min(40, slot / 3);
  const out = [
    `<text x="${x0}" y="${y0 - 12}" font-size="12">Deliveries received per second, each round</text>`,
  ];
  out.push(
    ...gridLines(
      x0,
      w,
      [0, 0.25, 0.5, 0.75, 1].map((f) => ({ y: y(max * f), text: fixed(max * f) })),
    ),
  );
  for (let k = 0; k < cycles; k++) {
    const cx = x0 + slot * (k + 0.5);
    for (const [arm, rounds, dx] of [
      ['platform', platform, -bar - 2],
      ['bare', bare, 2],
    ] as const) {
      const v = rounds[k]?.perSecond;
      if (v === undefined) continue;
      out.push(
        `<rect x="${(cx + dx).toFixed(1)}" y="${y(v).toFixed(1)}" width="${bar.toFixed(1)}" height="${(y0 + h - y(v)).toFixed(1)}" fill="${COLORS[arm]}"/>`,
        `<text x="${(cx + dx + bar / 2).toFixed(1)}" y="${(y(v) - 4).toFixed(1)}" text-anchor="middle" font-size="10">${fixed(v)}</text>`,
      );
    }
    const ratio = (platform[k]?.perSecond ?? Number.NaN) / (bare[k]?.perSecond ?? Number.NaN);
    out.push(
      `<text x="${cx.toFixed(1)}" y="${y0 + h + 14}" text-anchor="middle" font-size="10">round ${k + 1}: ${fixed(ratio, 2)}</text>`,
    );
  }
  const goal = y(TARGET_RATIO * median(bare.map((x) => x.perSecond)));
  out.push(
    `<line x1="${x0}" x2="${x0 + w}" y1="${goal.toFixed(1)}" y2="${goal.toFixed(1)}" stroke="#c92a2a" stroke-dasharray="4 3"/>`,
    `<text x="${x0 + w / 2}" y="${y0 + h + 28}" text-anchor="middle" font-size="10">round: platform / bare, ${r.settings.endpoints} endpoints or lanes each</text>`,
    `<text x="${x0 + w / 2}" y="${y0 + h + 41}" text-anchor="middle" font-size="10" fill="#c92a2a">dashed: the goal, ${TARGET_RATIO} × bare’s median</text>`,
  );
  return out;
}

export function svgOf(r: BenchResult): string {
  const h = 345;
  return svgDocument(
    780,
    h,
    'Webhook benchmark: event to first attempt at a fixed rate, and deliveries per second by arm',
    [
      ...tailLatencyPanel({
        x0: 50,
        y0: 40,
        w: 300,
        h: 220,
        title: `Event → first attempt at ${r.latency.rate} events/s: share within`,
        axisLabel: 'ms (just before the publish call → the receiver has the request)',
        color: COLORS.platform,
        latency: r.latency,
        targetP99Ms: TARGET_P99_MS,
        targetLabel: { text: `p99 goal ${TARGET_P99_MS} ms`, at: 'bottom' },
        // One point per 0.1% of the samples is enough for a curve this size (and keeps the file small).
        points: 1000,
      }),
      ...throughputPanel(r, 450, 40, 310, 220),
      `<rect x="50" y="${h - 18}" width="10" height="10" fill="${COLORS.platform}"/><text x="64" y="${h - 9}" font-size="11">platform (mail.events → fan-out → endpoint actors → HTTPS)</text>`,
      `<rect x="450" y="${h - 18}" width="10" height="10" fill="${COLORS.bare}"/><text x="464" y="${h - 9}" font-size="11">bare keep-alive HTTPS POST loop</text>`,
    ],
  );
}
