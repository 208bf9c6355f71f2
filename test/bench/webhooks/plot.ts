// docs/benchmarks-webhooks.svg, drawn by hand: the event-to-first-attempt distribution, and each
// round's deliveries a second by arm.
import { type BenchResult, fixed, median, type Round, TARGET_P99_MS, TARGET_RATIO } from './report.ts';

const COLORS = { platform: '#d9480f', bare: '#1c7ed6' } as const;

/** The latency panel's vertical scale: 0 at the bottom, then 90%, 99%, 99.9% at equal steps. */
const TAIL_STEPS = 3;
const tailOf = (share: number) => Math.min(TAIL_STEPS, -Math.log10(Math.max(1 - share, 10 ** -TAIL_STEPS)));

function latencyPanel(r: BenchResult, x0: number, y0: number, w: number, h: number): string[] {
  const l = r.latency;
  const maxMs = Math.max(TARGET_P99_MS * 1.25, Math.min(l.maxMs, l.p999Ms * 1.2));
  const x = (ms: number) => x0 + (Math.min(ms, maxMs) / maxMs) * w;
  const y = (share: number) => y0 + h - (tailOf(share) / TAIL_STEPS) * h;
  const out = [
    `<text x="${x0}" y="${y0 - 12}" font-size="12">Event → first attempt at ${l.rate} events/s: share within</text>`,
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
  // One point per 0.1% of the samples is enough for a curve this size (and keeps the file small).
  const step = Math.max(1, Math.floor(n / 1000));
  const points: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % step !== 0 && i < n - 20) continue;
    points.push(`${x(l.sorted[i]!).toFixed(1)},${y((i + 1) / n).toFixed(1)}`);
  }
  const tx = x(TARGET_P99_MS);
  out.push(
    `<polyline fill="none" stroke="${COLORS.platform}" stroke-width="1.8" points="${points.join(' ')}"/>`,
    `<line x1="${tx.toFixed(1)}" x2="${tx.toFixed(1)}" y1="${y0}" y2="${y0 + h}" stroke="#c92a2a" stroke-dasharray="4 3"/>`,
    `<text x="${(tx - 4).toFixed(1)}" y="${y0 + h - 8}" text-anchor="end" font-size="10" fill="#c92a2a">p99 goal ${TARGET_P99_MS} ms</text>`,
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
    `<text x="${x0 + w / 2}" y="${y0 + h + 28}" text-anchor="middle" font-size="10">ms (just before the publish call → the receiver has the request)</text>`,
  );
  return out;
}

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
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const v = max * f;
    out.push(
      `<line x1="${x0}" x2="${x0 + w}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#ddd"/>`,
      `<text x="${x0 - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="10">${fixed(v)}</text>`,
    );
  }
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
  const w = 780;
  const h = 345;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">`,
    '<title>Webhook benchmark: event to first attempt at a fixed rate, and deliveries per second by arm</title>',
    '<rect width="100%" height="100%" fill="white"/>',
    ...latencyPanel(r, 50, 40, 300, 220),
    ...throughputPanel(r, 450, 40, 310, 220),
    `<rect x="50" y="${h - 18}" width="10" height="10" fill="${COLORS.platform}"/><text x="64" y="${h - 9}" font-size="11">platform (mail.events → fan-out → endpoint actors → HTTPS)</text>`,
    `<rect x="450" y="${h - 18}" width="10" height="10" fill="${COLORS.bare}"/><text x="464" y="${h - 9}" font-size="11">bare keep-alive HTTPS POST loop</text>`,
    '</svg>',
    '',
  ].join('\n');
}
